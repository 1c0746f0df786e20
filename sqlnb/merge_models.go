package sqlnb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

// MergeSpec asks for the models Inputs, trained on disjoint rows, to be merged into the model Into.
type MergeSpec struct {
	Into   string
	Inputs []string
	// Replace: a stored model Into that is not one of the inputs may be replaced (else ErrModelExists).
	Replace bool
	// Force: the merged model may have more than MaxClasses classes.
	Force bool
}

// storedMergeable is mergeable for a stored model the user names: a per-group model is refused by its By, as
// one whose every group fell back to the pooled model has no Groups (mergeable alone let it through, and the
// result lost its grouping). Merge itself takes per-group parts: trainGrouped builds the pooled model so.
func storedMergeable(m *nb.Model) error {
	if len(m.By) > 0 {
		return errPerGroup(m)
	}
	for _, g := range families.ByFamily(m.Features) {
		if u, ok := g.Family.(nb.Updater); ok {
			if err := u.Updatable(m); err != nil {
				return err
			}
		}
	}
	return mergeable(m)
}

// MergeModels merges stored models trained on disjoint rows of one source into the model of their union
// (Merge: counts add, moments by Chan et al.'s pairwise update) and stores it as spec.Into in one
// transaction. The models must have the same label, label type, weight column, features (names, kinds,
// binarize thresholds, tokenizer settings; the column type of categorical ones) and hyperparameters.
// Into may be one of the inputs (it is replaced, on the condition that it is still the version read); any
// other stored model of that name is replaced only with spec.Replace. Whether the rows were disjoint
// cannot be checked: rows in two inputs count twice.
func MergeModels(ctx context.Context, db nb.DB, spec MergeSpec) (*nb.Model, error) {
	out, err := mergeModels(ctx, db, spec)
	if err != nil {
		return nil, fmt.Errorf("merge into %q: %w", spec.Into, err)
	}
	return out, nil
}

func mergeModels(ctx context.Context, db nb.DB, spec MergeSpec) (*nb.Model, error) {
	if err := nb.ValidateName(spec.Into); err != nil {
		return nil, err
	}
	if len(spec.Inputs) < 2 {
		return nil, fmt.Errorf("%w: %d model(s) to merge: name at least two", nb.ErrBadOption, len(spec.Inputs))
	}
	for i, n := range spec.Inputs {
		if slices.Contains(spec.Inputs[:i], n) {
			return nil, fmt.Errorf("%w: model %q is named twice: its rows would count twice", nb.ErrBadOption, n)
		}
	}
	var out *nb.Model
	err := store.RetryConflicts(ctx, spec.Into, func(ctx context.Context) error {
		models := make([]*nb.Model, len(spec.Inputs))
		want := "" // the generation of Into, if it is an input
		for i, n := range spec.Inputs {
			m, err := Load(ctx, db, n)
			if err != nil {
				return err
			}
			if err := storedMergeable(m); err != nil {
				return err
			}
			if i > 0 {
				alignNames(models[0], m)
				if err := sameFeatures(models[0], m, fmt.Sprintf("model %q", n)); err != nil {
					return err
				}
				if name := diffParams(models[0].Params, m.Params, m); name != "" {
					return fmt.Errorf("%w: models %q and %q have different %s: set it equal first (sqlnb models set, nb_set)", nb.ErrBadOption, models[0].Name, n, name)
				}
			}
			if n == spec.Into {
				want = m.Generation
			}
			models[i] = m
		}
		replace := spec.Replace && want == ""
		if want == "" && !replace {
			names, err := store.ModelNames(ctx, db)
			if err != nil {
				return err
			}
			if slices.Contains(names, spec.Into) {
				return fmt.Errorf("%w: model %q is stored and is not one of the models merged: merge into another name, or replace it (--replace, replace := true)", nb.ErrModelExists, spec.Into)
			}
		}
		var labels [][]string
		for _, m := range models {
			labels = append(labels, classLabels(m))
		}
		order, err := orderLabels(ctx, db, models[0].LabelType, labels...)
		if err != nil {
			return err
		}
		m, err := Merge(models[0], order, models...)
		if err != nil {
			return err
		}
		m.Name, m.Generation, m.Created = spec.Into, nb.NewGeneration(), time.Now().UTC().Truncate(time.Microsecond)
		m.Source = "merge of " + strings.Join(quoteAll(spec.Inputs), ", ")
		if err := finish(m, spec.Force); err != nil {
			return err
		}
		if replace {
			err = theStore.Put(ctx, db, m)
		} else {
			err = saveIfUnchanged(ctx, db, m, want)
		}
		out = m
		return err
	})
	return out, err
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

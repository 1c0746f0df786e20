package sqlnb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"

	"github.com/sqlnb/sqlnb/queries"
)

// UpdateSpec names a stored model and rows to add to it (Append) or to remove from it (Forget).
type UpdateSpec struct {
	// Model is the stored model; Source the rows (a table, query or file, as TrainSpec.Source).
	Model, Source string
	// Label is the class column of Source; empty: the model's label column.
	Label string
	// Options are the options the user gave. Those not set take the model's; those set must equal the
	// model's (features, kinds, weight column, binarize threshold, tokenizer settings and hyperparameters),
	// else the error names the model and the column that differs. A term table (Terms, Doc, Term, Count)
	// gives the rows of a model's term-table feature.
	Options Options
	// BinarizeSet: Options.Binarize was given (0 is a threshold too).
	BinarizeSet bool
}

// UpdateResult summarises an Append or Forget: the stored model and the statistics of the rows added or
// removed (Part: its classes, rows, skipped rows).
type UpdateResult struct {
	Model    *nb.Model
	Part     *nb.Model
	Duration time.Duration
	// Warnings say where the result may fall short of the model of the remaining rows (Forget:
	// forgetRounding).
	Warnings []string
}

// Append adds the statistics of the rows of spec.Source to the stored model spec.Model (scikit-learn's
// partial_fit): the rows are scanned as the model's training was — same features, kinds, weight column,
// binarize threshold and tokenizer — and merged into it exactly (Merge); classes may be new. The model is
// replaced in one transaction, on the condition that it is still the version read (a concurrent change
// makes it merge again), so no update is lost and readers see the old model or the new one. A fitted
// model (logistic regression) cannot: ErrNotMergeable.
func Append(ctx context.Context, db nb.DB, spec UpdateSpec) (*UpdateResult, error) {
	res, err := updateModel(ctx, db, spec, func(ctx context.Context, m, part *nb.Model) (*nb.Model, error) {
		order, err := orderLabels(ctx, db, m.LabelType, classLabels(m), classLabels(part))
		if err != nil {
			return nil, err
		}
		known := m.ClassIndex()
		for _, c := range part.Classes {
			if _, ok := known[c.Label]; !ok && m.Weight != "" && c.Weight == 0 {
				return nil, fmt.Errorf("%w: the rows add class %q with total weight 0 in weight column %q: it could never be predicted; "+
					"give its rows positive weights or filter them out", nb.ErrBadValue, c.Label, m.Weight)
			}
		}
		if m.Params.Text("priors") == nb.PriorsGiven {
			var added []string
			for _, c := range part.Classes {
				if _, ok := known[c.Label]; !ok {
					added = append(added, c.Label)
				}
			}
			if len(added) > 0 { // a given prior cannot be made up for a new class
				return nil, fmt.Errorf("%w: model %q has given priors, and the rows add %s, which %s none: set fit priors first "+
					"(models set --priors fit; nb_set), add the rows, then give every class its prior", nb.ErrBadOption, m.Name,
					strings.Join(quoteAll(added), ", "), map[bool]string{true: "has", false: "have"}[len(added) == 1])
			}
		}
		out, err := Merge(m, order, m, part)
		if err != nil {
			return nil, err
		}
		out.Generation = nb.NewGeneration()
		out.Source = updatedSource(m.Source, "+", spec.Source)
		return out, nil
	})
	if err != nil {
		return nil, fmt.Errorf("append to %q: %w", spec.Model, err)
	}
	return res, nil
}

// Forget removes the statistics of the rows of spec.Source — rows the stored model spec.Model was trained
// on, for example a deletion request — from the model (Subtract), scanned as Append scans them, and stores
// the result as Append does. The model then equals the model of the remaining rows: a class left without
// rows is dropped. Forgetting rows that were never trained is an error (ErrCannotForget) only where a count,
// weight or variance would fall below zero or a class, value or term was never counted; otherwise it cannot
// be detected.
func Forget(ctx context.Context, db nb.DB, spec UpdateSpec) (*UpdateResult, error) {
	var before *nb.Model
	res, err := updateModel(ctx, db, spec, func(_ context.Context, m, part *nb.Model) (*nb.Model, error) {
		before = m
		out, err := Subtract(m, part)
		if err != nil {
			return nil, err
		}
		// A feature whose rows to forget hold no value (NULL) where the trained rows had one leaves its
		// statistics counting more rows than their class keeps (it said "invalid model ... more than the
		// class's", as if the store were corrupt).
		var re *nb.RowError
		if verr := families.Validate(out); errors.As(verr, &re) && errors.Is(re.Err, nb.ErrBeyondClass) {
			return nil, fmt.Errorf("%w: model %q: the rows to forget do not match the rows that were trained: after forgetting them, %s "+
				"would count more rows than its class keeps — rows to forget must hold the values they were trained with (a NULL "+
				"where the trained row had a value is a different row); forget exactly the rows that were trained", nb.ErrCannotForget, m.Name, re.Detail)
		}
		out.Source = updatedSource(m.Source, "−", spec.Source)
		if m.Params.Text("priors") == nb.PriorsGiven && len(out.Classes) < len(m.Classes) {
			left := out.ClassIndex()
			var gone []string
			for _, c := range m.Classes {
				if _, ok := left[c.Label]; !ok {
					gone = append(gone, c.Label)
				}
			}
			return nil, fmt.Errorf("%w: model %q has given priors, and forgetting the rows removes %s, whose prior the others would have "+
				"to make up: set fit priors first (models set --priors fit; nb_set), forget the rows, then give the classes left their priors",
				nb.ErrBadOption, m.Name, strings.Join(quoteAll(gone), ", "))
		}
		return out, nil
	})
	if err != nil {
		return nil, fmt.Errorf("forget from %q: %w", spec.Model, err)
	}
	res.Warnings = forgetRounding(before, res.Model)
	return res, nil
}

// updatedSource records rows added (+) or forgotten (−) in a model's source text, as merge records its
// inputs ("A + B − C"): the model no longer stands for its first source alone. A long history keeps its
// start and its newest step.
func updatedSource(source, op, rows string) string {
	if r := []rune(source); len(r) > 400 {
		source = string(r[:400]) + " …"
	}
	if r := []rune(rows); len(r) > 590 {
		rows = string(r[:590]) + " …"
	}
	return source + " " + op + " " + rows
}

// forgetRounding warns of the features of model after, which Forget made from model before, whose
// estimates may be off by more than 1e-11 relative (each family that can tell says: ForgetWarner), the
// worst estimate of each feature. Training on the remaining rows computes them afresh.
func forgetRounding(before, after *nb.Model) []string {
	worst := map[string]nb.RoundingWarning{}
	for _, g := range families.ByFamily(after.Features) {
		fw, ok := g.Family.(nb.ForgetWarner)
		if !ok {
			continue
		}
		for _, w := range fw.ForgetRounding(before, after) {
			if w.Off > 1e-11 && w.Off > worst[w.Feature].Off {
				worst[w.Feature] = w
			}
		}
	}
	var out []string
	for _, f := range nb.SortedKeys(worst) {
		w := worst[f]
		out = append(out, fmt.Sprintf("feature %q: its %s may be off by about %.1g relative, as the rounding of the sums grows "+
			"when most of a class's rows are forgotten (%s): train the model again on the remaining rows for every digit", f, w.Estimate, w.Off, w.When))
	}
	return out
}

// updateModel loads the model, scans the rows once, and stores combine(model, rows) provided the stored
// model is still the version loaded; if it changed meanwhile, it loads it again and combines again.
func updateModel(ctx context.Context, db nb.DB, spec UpdateSpec, combine func(ctx context.Context, m, part *nb.Model) (*nb.Model, error)) (*UpdateResult, error) {
	start := time.Now()
	if err := nb.ValidateName(spec.Model); err != nil {
		return nil, err
	}
	m, err := Load(ctx, db, spec.Model)
	if err != nil {
		return nil, err
	}
	if err := storedMergeable(m); err != nil {
		return nil, err
	}
	ts, err := updateTrainSpec(m, spec)
	if err != nil {
		return nil, err
	}
	part, err := scanRows(ctx, db, ts)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", m.Name, err)
	}
	alignNames(m, part)
	if err := sameFeatures(m, part, "the rows"); err != nil {
		return nil, err
	}
	var out *nb.Model
	err = store.RetryConflicts(ctx, m.Name, func(ctx context.Context) error {
		if m == nil {
			if m, err = Load(ctx, db, spec.Model); err != nil {
				return err
			}
			alignNames(m, part)
			if err := sameFeatures(m, part, "the rows"); err != nil {
				return err
			}
		}
		next, err := combine(ctx, m, part)
		if err != nil {
			return err
		}
		if err := finish(next, spec.Options.Force); err != nil {
			return err
		}
		err = saveIfUnchanged(ctx, db, next, m.Generation)
		m, out = nil, next // a conflict loads the model again
		return err
	})
	if err != nil {
		return nil, err
	}
	return &UpdateResult{Model: out, Part: part, Duration: time.Since(start)}, nil
}

// finish checks a combined model as training checks a new one: valid, not too many classes, and compilable.
func finish(m *nb.Model, force bool) error {
	if _, err := checkClasses(m.Label, len(m.Classes), m.Rows, force); err != nil {
		return err
	}
	if err := families.Validate(m); err != nil {
		// The parts were valid: their sums overflowed (it said "invalid model", as if the store were corrupt).
		var re *nb.RowError
		if errors.As(err, &re) && errors.Is(re.Err, nb.ErrNotFinite) {
			return fmt.Errorf("%w: model %q: the combined statistics of %s overflow a DOUBLE: the values are too large for the sums of "+
				"their squares; rescale the feature (for example divide it by a power of ten) in every part and train them again",
				nb.ErrBadValue, m.Name, re.Detail)
		}
		return err
	}
	_, err := Compile(m)
	return err
}

// errModelChanged: the stored model is not the version that was read (retried by retryConflicts).
var errModelChanged = errors.New("Conflict on update: the model was changed meanwhile")

// saveIfUnchanged stores m in one transaction provided the stored model of m's name has generation want
// (want "": none is stored); else errModelChanged, or ErrModelExists when a model appeared where none was.
func saveIfUnchanged(ctx context.Context, db nb.DB, m *nb.Model, want string) error {
	m.Version = nb.FormatVersion
	if err := theStore.EnsureStore(ctx, db); err != nil {
		return err
	}
	return store.InTransaction(ctx, db, func(t *store.StoreTx) error {
		q := t.Querier
		var gen sql.NullString
		if err := q.QueryRowContext(ctx, queries.SQL("store_model_generation.sql"), m.Name).Scan(&gen); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		switch {
		case gen.String == want:
			return theStore.SaveTx(ctx, t, m)
		case want == "":
			return fmt.Errorf("%w: model %q was stored by another command meanwhile: merge into another name, or replace it (--replace, replace := true)", nb.ErrModelExists, m.Name)
		}
		return errModelChanged
	})
}

// scanRows computes the statistics of the rows of spec's source as training does (the same scans), without
// the checks that apply to a whole model: the rows may hold a single class.
func scanRows(ctx context.Context, db nb.Querier, spec TrainSpec) (*nb.Model, error) {
	p, err := makePlan(ctx, db, spec)
	if err != nil {
		return nil, err
	}
	p.Params = *spec.Params
	sc, err := trainStats(ctx, db, p, "")
	if err != nil {
		return nil, err
	}
	part := sc.Part(0)
	m := &nb.Model{Name: spec.Model, Label: p.Label.Name, LabelType: p.Label.Type, Weight: p.Weight, Source: spec.Source,
		Params: p.Params, Features: p.Features, Classes: part.ClassList(sc.Order), SkippedRows: part.Skipped,
		IncompleteRows: part.Incomplete, Stats: part.Stats}
	for _, c := range m.Classes {
		m.Rows += c.Count
	}
	if m.Rows == 0 {
		return nil, fmt.Errorf("%w: source %s has no rows with a non-NULL label %q", nb.ErrNoRows, p.Src.Quoted(), p.Label.Name)
	}
	return m, nil
}

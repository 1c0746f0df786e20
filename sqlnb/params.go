package sqlnb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"

	"github.com/sqlnb/sqlnb/queries"
)

// paramUsed reports whether the hyperparameter name (as stored: "alpha", "c", ...) has an effect on model m:
// one of its features is of a kind that uses it (tol and max_iter also bound a semi-supervised model's EM;
// alpha also smooths the priors of --priors smoothed).
func paramUsed(m *nb.Model, name string) bool {
	if name == "priors" {
		return !slices.ContainsFunc(m.Features, func(f nb.Feature) bool { return slices.Contains(priorIgnorers, f.Kind) })
	}
	spec, ok := families.ParamSet().Spec(name)
	kinds := spec.Kinds
	switch {
	case !ok, (m.UnlabelledRows > 0 || m.Iterations > 0) && (name == "tol" || name == "max_iter"):
		return true
	case name == "alpha" && m.Params.Text("priors") == nb.PriorsSmoothed: // the smoothed priors (n_c + α)/(n + αK)
		return true
	}
	for _, f := range m.Features {
		if slices.Contains(kinds, f.Kind) {
			return true
		}
	}
	return false
}

// priorIgnorers are the kinds whose models leave the class priors out (Scorer: one such feature clears
// them all).
var priorIgnorers = func() []nb.Kind {
	var out []nb.Kind
	for _, k := range families.Kinds() {
		if k.Priorless {
			out = append(out, k.Kind)
		}
	}
	return out
}()

// ParamsSummary describes, in one line, the hyperparameters that apply to m's kinds (each family that
// keeps its own says which: summarizer), and the rows left out for a missing value.
func ParamsSummary(m *nb.Model) string {
	var parts []string
	for _, g := range families.ByFamily(m.Features) {
		if s, ok := g.Family.(nb.Summarizer); ok {
			parts = append(parts, s.Summary(m))
		}
	}
	p := m.Params
	if len(parts) == 0 {
		parts = append(parts, usedParamsText(m))
	}
	// Text features: the vocabulary limits (model parameters) and each feature's tokenizer settings.
	var text []string
	for _, f := range m.Features {
		if !families.KindInfo(f.Kind).Text {
			continue
		}
		if text == nil && (p.Int("min_df") > 0 || p.Int("max_features") > 0) {
			text = append(text, fmt.Sprintf("min_df %d, max_features %d", p.Int("min_df"), p.Int("max_features")))
		}
		if f.Text.Ngrams > 1 || f.Text.StopWords != "" {
			opts := []string{fmt.Sprintf("ngrams %d", max(1, f.Text.Ngrams))}
			if f.Text.StopWords != "" {
				opts = append(opts, "stop words "+f.Text.StopWords)
			}
			text = append(text, fmt.Sprintf("feature %q: %s", f.Name, strings.Join(opts, ", ")))
		}
	}
	parts = append(parts, text...)
	if m.IncompleteRows > 0 {
		parts = append(parts, fmt.Sprintf("%d rows left out for a missing feature value", m.IncompleteRows))
	}
	if m.UnlabelledRows > 0 {
		parts = append(parts, fmt.Sprintf("semi-supervised (EM, tol %g, max_iter %d): %d unlabelled rows, %d EM steps, log-likelihood %.10g",
			p.Float("tol"), p.Int("max_iter"), m.UnlabelledRows, m.Iterations, m.LogLikelihood))
	}
	if len(m.By) > 0 {
		names := make([]string, len(m.By))
		for i, b := range m.By {
			names[i] = b.Name
		}
		parts = append(parts, fmt.Sprintf("%d group models by %s (nb.groups; the parameters shown are the pooled model's, which scores unseen groups)",
			len(m.Groups), strings.Join(names, ", ")))
	}
	return strings.Join(parts, ", ")
}

// SetParams changes the hyperparameters of a stored model without retraining (given priors by class). The
// statistics are not rewritten: the model row's parameters and generation change in one transaction, on
// the condition that the statistics are still the version the parameters were checked against (a
// concurrent retrain makes it start again), so no update is lost.
func SetParams(ctx context.Context, db nb.DB, name string, p nb.Params, given map[string]float64) (*nb.Model, error) {
	var out *nb.Model
	err := store.RetryConflicts(ctx, name, func(ctx context.Context) error {
		m, err := Load(ctx, db, name)
		if err != nil {
			return err
		}
		if p.Equal(m.Params) && given == nil { // nothing changes: the model (and exports bound to it) stays as it is
			out = m
			return nil
		}
		if err := checkFitted(m, p); err != nil {
			return err
		}
		if m.UnlabelledRows > 0 && (p.Float("tol") != m.Params.Float("tol") || p.Int("max_iter") != m.Params.Int("max_iter")) {
			return fmt.Errorf("%w: model %q was fitted by EM (semi-supervised): tol and max_iter describe that fit, which changing them "+
				"would not redo; train it again with --semi-supervised --tol/--max-iter", nb.ErrBadOption, name)
		}
		if len(m.Groups) > 0 && p.Text("priors") == nb.PriorsGiven {
			return fmt.Errorf("%w: model %q has one model per group (--by): given priors are not supported, as a group may lack some classes; "+
				"use fit, smoothed or uniform priors", nb.ErrBadOption, name)
		}
		keepPriors := p.Text("priors") == nb.PriorsGiven && given == nil && m.Params.Text("priors") == nb.PriorsGiven // the stored given priors
		m.Params = p
		old := m.Generation
		m.Generation = nb.NewGeneration()
		switch {
		case keepPriors:
		case p.Text("priors") == nb.PriorsGiven:
			if err := applyGivenPriors(m, given); err != nil {
				return fmt.Errorf("model %q: %w", name, err)
			}
		default:
			for i := range m.Classes {
				m.Classes[i].Prior = 0
			}
		}
		if err := families.Validate(m); err != nil {
			return err
		}
		if _, err := Compile(m); err != nil {
			return err
		}
		if err := checkModel(m, nil); err != nil {
			return err
		}
		err = store.InTransaction(ctx, db, func(t *store.StoreTx) error {
			q := t.Querier
			t.Replacing(ctx, name, old)
			params, err := json.Marshal(p)
			if err != nil {
				return err
			}
			res, err := q.ExecContext(ctx, queries.SQL("store_update_params.sql"), string(params), m.Generation, name, old)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return errChanged
			}
			labels, priors := make([]string, len(m.Classes)), make([]float64, len(m.Classes))
			for i, c := range m.Classes {
				labels[i], priors[i] = c.Label, math.NaN()
				if p.Text("priors") == nb.PriorsGiven {
					priors[i] = c.Prior
				}
			}
			if _, err := q.ExecContext(ctx, queries.SQL("store_update_priors.sql"), name, labels, priors); err != nil {
				return err
			}
			if err := store.DropMarker(ctx, q, old); err != nil {
				return err
			}
			return store.CreateMarker(ctx, q, m.Generation)
		})
		if errors.Is(err, errChanged) {
			return errors.New("Conflict on update: the model was retrained meanwhile")
		}
		out = m
		return err
	})
	return out, err
}

// errChanged: the stored model is no longer the version read.
var errChanged = errors.New("model changed")

// usedParams lists the hyperparameters that have an effect on model m (paramUsed), in declaration order.
func usedParams(m *nb.Model) []nb.ParamSpec {
	var out []nb.ParamSpec
	for _, s := range families.ParamSet().Specs() {
		if paramUsed(m, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// usedParamsText writes the hyperparameters that apply to m as "alpha 1, var_smoothing 1e-09, ...".
func usedParamsText(m *nb.Model) string {
	var parts []string
	for _, s := range usedParams(m) {
		v, _ := m.Params.Value(s.Name)
		parts = append(parts, fmt.Sprintf("%s %v", s.Name, v))
	}
	return strings.Join(parts, ", ")
}

// checkFitted refuses to change, without training again, a hyperparameter that shaped model m's fit
// (nb.ParamSpec.Fitted) and that m uses.
func checkFitted(m *nb.Model, p nb.Params) error {
	var fitted []string
	changed := false
	for _, s := range usedParams(m) {
		if !s.Fitted || (s.Name == "tol" || s.Name == "max_iter") && m.UnlabelledRows > 0 {
			continue // EM's tol and max_iter: SetParams says why
		}
		fitted = append(fitted, s.Label())
		changed = changed || !m.Params.Same(p, s.Name)
	}
	if !changed {
		return nil
	}
	return fmt.Errorf("%w: model %q: %s were used to fit it: train it again to change them (sqlnb train --%s ..., or nb_train(..., %s := ...))",
		nb.ErrBadOption, m.Name, orList(fitted), strings.ReplaceAll(fitted[0], "_", "-"), strings.ToLower(fitted[0]))
}

// orList writes "a, b and c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

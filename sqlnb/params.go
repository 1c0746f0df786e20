package sqlnb

import (
	"context"
	"errors"
	"fmt"
	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/counts"
	"github.com/sqlnb/sqlnb/sqlnb/family/discriminant"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/family/logistic"
	"github.com/sqlnb/sqlnb/sqlnb/family/poisson"
	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
	"math"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
)

// paramKinds names, for each hyperparameter (by its stored name) that only some kinds use, those kinds; a
// hyperparameter not listed applies to every model, but priors, which priorIgnorers cancel.
var paramKinds = map[string][]nb.Kind{
	"alpha":         {categorical.Categorical, categorical.Bernoulli, counts.Multinomial, counts.Complement, text.Text, text.TextBernoulli, text.TextComplement},
	"var_smoothing": {gaussian.Gaussian},
	"variance":      {gaussian.Gaussian},
	"norm":          {counts.Complement, text.TextComplement},
	"min_df":        {text.Text, text.TextBernoulli, text.TextComplement},
	"max_features":  {text.Text, text.TextBernoulli, text.TextComplement},
	"threshold":     {categorical.Categorical, categorical.Bernoulli, gaussian.Gaussian, poisson.Poisson},
	"eps":           {categorical.Categorical, categorical.Bernoulli, gaussian.Gaussian, poisson.Poisson},
	"reg_param":     {discriminant.QDA},
	"solver":        {discriminant.LDA},
	"shrinkage":     {discriminant.LDA},
	"c":             {logistic.Logistic},
	"penalty":       {logistic.Logistic},
	"tol":           {logistic.Logistic}, // and EM (semi-supervised training)
	"max_iter":      {logistic.Logistic},
}

// paramUsed reports whether the hyperparameter name (as stored: "alpha", "c", ...) has an effect on model m:
// one of its features is of a kind that uses it (tol and max_iter also bound a semi-supervised model's EM;
// alpha also smooths the priors of --priors smoothed).
func paramUsed(m *nb.Model, name string) bool {
	if name == "priors" {
		return !slices.ContainsFunc(m.Features, func(f nb.Feature) bool { return slices.Contains(priorIgnorers, f.Kind) })
	}
	kinds, ok := paramKinds[name]
	switch {
	case !ok, (m.UnlabelledRows > 0 || m.Iterations > 0) && (name == "tol" || name == "max_iter"):
		return true
	case name == "alpha" && m.Params.Priors == nb.PriorsSmoothed: // the smoothed priors (n_c + α)/(n + αK)
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
		parts = append(parts, fmt.Sprintf("alpha %g, var_smoothing %g, variance %s, priors %s", p.Alpha, p.VarSmoothing, p.Variance, p.Priors))
	}
	// Text features: the vocabulary limits (model parameters) and each feature's tokenizer settings.
	var text []string
	for _, f := range m.Features {
		if !families.KindInfo(f.Kind).Text {
			continue
		}
		if text == nil && (p.MinDF > 0 || p.MaxFeatures > 0) {
			text = append(text, fmt.Sprintf("min_df %d, max_features %d", p.MinDF, p.MaxFeatures))
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
			p.Tol, p.MaxIter, m.UnlabelledRows, m.Iterations, m.LogLikelihood))
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
		if p == m.Params && given == nil { // nothing changes: the model (and exports bound to it) stays as it is
			out = m
			return nil
		}
		for _, g := range families.ByFamily(m.Features) {
			if fp, ok := g.Family.(nb.FitParamsFamily); ok {
				if err := fp.CheckParams(m, p); err != nil {
					return err
				}
			}
		}
		if m.UnlabelledRows > 0 && (p.Tol != m.Params.Tol || p.MaxIter != m.Params.MaxIter) {
			return fmt.Errorf("%w: model %q was fitted by EM (semi-supervised): tol and max_iter describe that fit, which changing them "+
				"would not redo; train it again with --semi-supervised --tol/--max-iter", nb.ErrBadOption, name)
		}
		if len(m.Groups) > 0 && p.Priors == nb.PriorsGiven {
			return fmt.Errorf("%w: model %q has one model per group (--by): given priors are not supported, as a group may lack some classes; "+
				"use fit, smoothed or uniform priors", nb.ErrBadOption, name)
		}
		keepPriors := p.Priors == nb.PriorsGiven && given == nil && m.Params.Priors == nb.PriorsGiven // the stored given priors
		m.Params = p
		old := m.Generation
		m.Generation = nb.NewGeneration()
		switch {
		case keepPriors:
		case p.Priors == nb.PriorsGiven:
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
			res, err := q.ExecContext(ctx, queries.SQL("store_update_params.sql"), p.Alpha, p.VarSmoothing, p.Variance, p.Priors,
				p.Norm, p.MinDF, p.MaxFeatures, p.Threshold, p.Eps, p.RegParam, p.Solver, p.Shrinkage, p.C, p.Penalty, p.Tol, p.MaxIter,
				m.Generation, name, old)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return errChanged
			}
			labels, priors := make([]string, len(m.Classes)), make([]float64, len(m.Classes))
			for i, c := range m.Classes {
				labels[i], priors[i] = c.Label, math.NaN()
				if p.Priors == nb.PriorsGiven {
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

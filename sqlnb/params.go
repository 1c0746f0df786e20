package sqlnb

import (
	"fmt"
	"slices"
	"strings"
)

// paramKinds names, for each hyperparameter (by its stored name) that only some kinds use, those kinds; a
// hyperparameter not listed applies to every model, but priors, which priorIgnorers cancel.
var paramKinds = map[string][]Kind{
	"alpha":         {Categorical, Bernoulli, Multinomial, Complement, Text, TextBernoulli, TextComplement},
	"var_smoothing": {Gaussian},
	"variance":      {Gaussian},
	"norm":          {Complement, TextComplement},
	"min_df":        {Text, TextBernoulli, TextComplement},
	"max_features":  {Text, TextBernoulli, TextComplement},
	"threshold":     {Categorical, Bernoulli, Gaussian, Poisson},
	"eps":           {Categorical, Bernoulli, Gaussian, Poisson},
	"reg_param":     {QDA},
	"solver":        {LDA},
	"shrinkage":     {LDA},
	"c":             {Logistic},
	"penalty":       {Logistic},
	"tol":           {Logistic}, // and EM (semi-supervised training)
	"max_iter":      {Logistic},
}

// ParamUsed reports whether the hyperparameter name (as stored: "alpha", "c", ...) has an effect on model m:
// one of its features is of a kind that uses it (tol and max_iter also bound a semi-supervised model's EM;
// alpha also smooths the priors of --priors smoothed).
func (m *Model) ParamUsed(name string) bool {
	if name == "priors" {
		return !slices.ContainsFunc(m.Features, func(f Feature) bool { return slices.Contains(priorIgnorers, f.Kind) })
	}
	kinds, ok := paramKinds[name]
	switch {
	case !ok, (m.UnlabelledRows > 0 || m.Iterations > 0) && (name == "tol" || name == "max_iter"):
		return true
	case name == "alpha" && m.Params.Priors == PriorsSmoothed: // the smoothed priors (n_c + α)/(n + αK)
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
var priorIgnorers = []Kind{Complement, TextComplement, Logistic}

// ParamsSummary describes, in one line, the hyperparameters that apply to m's kinds (each family that
// keeps its own says which: summarizer), and the rows left out for a missing value.
func (m *Model) ParamsSummary() string {
	var parts []string
	for _, g := range families.ByFamily(m.Features) {
		if s, ok := g.Family.(summarizer); ok {
			parts = append(parts, s.summary(m))
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

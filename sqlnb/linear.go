package sqlnb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Linear is the linear form of a two-class model (seed 000: Gaussian NB with a shared variance; seed 002:
// Bernoulli NB): for every row without a missing value,
//
//	log p(Positive | x) / p(Negative | x) = Intercept + Σ_j Weight_j x_j
//
// the log-odds that nb_explain splits and whose sign decides nb_predict (Positive wins when it is > 0).
// Positive is the model's second class, Negative its first.
type Linear struct {
	Positive, Negative string
	Intercept          float64
	Terms              []nb.LinearTerm
}

// LinearForm returns the linear form of a two-class model whose every component has one (Gaussian NB with
// variance pooled, Bernoulli and categorical NB, lda, logistic); otherwise an error naming the model and
// what is not linear.
func LinearForm(s *Scorer) (*Linear, error) {
	m := s.Model
	if len(s.Labels) != 2 {
		return nil, fmt.Errorf("%w: model %q has %d classes: a linear form (the log-odds of one class against the other) needs two",
			nb.ErrBadOption, m.Name, len(s.Labels))
	}
	if len(m.By) > 0 {
		// Each group's model has its own weights; the pooled model's would score no row.
		return nil, fmt.Errorf("%w: model %q is a per-group model (by %s): each group scores with its own weights, so no one linear "+
			"form holds; train one group's rows alone for its form, or use nb_explain per row", nb.ErrBadOption, m.Name, byNames(m))
	}
	out := &Linear{Positive: s.Labels[1], Negative: s.Labels[0], Intercept: s.LogPrior[1] - s.LogPrior[0]}
	for _, comp := range s.Components {
		lc, ok := comp.(nb.LinearComponent)
		if !ok {
			var kinds []string
			for _, in := range comp.Inputs() {
				kinds = nb.AppendNew(kinds, string(m.Features[in.Feature].Kind))
			}
			return nil, fmt.Errorf("%w: model %q: %s features have no linear form (it exists for gaussian with variance pooled, "+
				"bernoulli, categorical, lda and logistic)", nb.ErrBadOption, m.Name, strings.Join(kinds, ", "))
		}
		w0, terms, err := lc.Linear()
		if err != nil {
			return nil, fmt.Errorf("%w: model %q: %v", nb.ErrBadOption, m.Name, err)
		}
		out.Intercept += w0
		out.Terms = append(out.Terms, terms...)
	}
	return out, nil
}

// byNames lists a per-group model's group columns, quoted.
func byNames(m *nb.Model) string {
	names := make([]string, len(m.By))
	for i, b := range m.By {
		names[i] = strconv.Quote(b.Name)
	}
	return strings.Join(names, ", ")
}

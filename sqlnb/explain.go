package sqlnb

import (
	"math"
	"sort"
	"strconv"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Explain returns, for row i of b, the classes compared, a against bb, and each feature's log-likelihood
// ratio between them, sorted by magnitude, followed by the prior term (for logistic regression: the
// intercept difference). With versus < 0 the classes are, for two classes, the second against the first, and
// for more, the most probable against the runner-up; with versus ≥ 0 they are the most probable class (ties:
// the first in model order, as nb_predict) against class versus (every ratio is 0 when that is the most
// probable class). The ratios add up to the log-odds b_a - b_bb: the components' row references
// (Component.Explain) split exactly what the scorer adds. A row that misses a required value (Incomplete)
// has no explanation: a and bb are -1. A per-group model explains the row with its group's model (a group
// lacking class versus has no explanation).
func (s *Scorer) Explain(b *nb.Batch, i, versus int) (a, bb int, out []nb.Contribution) {
	if s.groups != nil {
		sc, gb, gi, classOf := s.rowGroup(b, i)
		two := len(s.Labels) == 2 // the model's rule for two classes, not the group's (a group may lack a class)
		if classOf == nil {
			return sc.explainOne(gb, gi, versus, two)
		}
		if versus >= 0 {
			gv := -1
			for c, pc := range classOf {
				if pc == versus {
					gv = c
				}
			}
			if gv < 0 {
				return -1, -1, nil
			}
			versus = gv
		}
		a, bb, out = sc.explainOne(gb, gi, versus, two)
		if a >= 0 {
			a, bb = classOf[a], classOf[bb]
		}
		return a, bb, out
	}
	return s.explainOne(b, i, versus, len(s.Labels) == 2)
}

// explainOne is Explain without group dispatch; two: the model has two classes (the second is explained
// against the first), else the predicted class against the runner-up.
func (s *Scorer) explainOne(b *nb.Batch, i, versus int, two bool) (a, bb int, out []nb.Contribution) {
	if s.Incomplete(b, i) {
		return -1, -1, nil
	}
	K := len(s.Labels)
	if two && K == 2 && versus < 0 {
		a, bb = 1, 0
	} else {
		scores := make([]nb.XFloat, K)
		s.rowScores(b, i, scores)
		a, bb = -1, -1
		for c := range K {
			switch {
			case a < 0 || scores[c].Greater(scores[a]):
				a, bb = c, a
			case bb < 0 || scores[c].Greater(scores[bb]):
				bb = c
			}
		}
		if versus >= 0 {
			bb = versus
		}
	}
	for _, comp := range s.Components {
		out = comp.Explain(b, i, a, bb, out)
	}
	for k := range out {
		if out[k].Input != nil {
			out[k].Value = valueText(out[k].Input, b, i)
		}
	}
	sort.SliceStable(out, func(x, y int) bool { return math.Abs(out[x].LLR) > math.Abs(out[y].LLR) })
	out = append(out, nb.Contribution{LLR: s.LogPrior[a] - s.LogPrior[bb]})
	return a, bb, out
}

// valueText is row i's value of input in as text: "" when missing.
func valueText(in *nb.Input, b *nb.Batch, i int) string {
	j := in.Feature
	switch in.Kind {
	case nb.NumberInput:
		if !nb.IsValid(b.Valid[j], i) {
			return ""
		}
		return strconv.FormatFloat(b.Num[j][i], 'g', -1, 64)
	case nb.TermsInput:
		sp := b.Sparse[j]
		if sp.Null[i] {
			return ""
		}
		n := 0.0
		for e := sp.Off[i]; e < sp.Off[i+1]; e++ {
			n += sp.Val[e]
		}
		return strconv.FormatFloat(n, 'g', -1, 64) + " known terms"
	}
	switch v := b.Cat[j][i]; {
	case v == in.Missing():
		return ""
	case v == in.Unseen():
		return "(unseen)"
	default:
		return in.Values[v]
	}
}

// MostInformative lists, per class, the top feature values by LLR (Component.Informative).
func MostInformative(s *Scorer, top int) []nb.Informative {
	var out []nb.Informative
	for c := range s.Labels {
		var cand []nb.Informative
		for _, comp := range s.Components {
			cand = append(cand, comp.Informative(s.Labels, c)...)
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].LLR > cand[b].LLR })
		out = append(out, cand[:max(0, min(top, len(cand)))]...)
	}
	return out
}

// Parameters lists the compiled parameters of s: priors, then each component's.
func Parameters(s *Scorer) []nb.Parameter {
	var out []nb.Parameter
	for c, cl := range s.Model.Classes {
		if s.Intercepts {
			out = append(out, nb.Parameter{Class: cl.Label, Parameter: "intercept", Estimate: s.LogPrior[c], Count: cl.Weight})
			continue
		}
		prior := math.Exp(s.LogPrior[c])
		if s.NoPriors {
			prior = math.NaN() // none: the scores ignore it (shown as NULL)
		}
		out = append(out, nb.Parameter{Class: cl.Label, Parameter: "prior", Estimate: prior, Count: cl.Weight})
	}
	for _, comp := range s.Components {
		out = append(out, comp.Parameters(s.Labels)...)
	}
	return out
}

package sqlnb

import (
	"math"
	"sort"
	"strconv"
)

// featureTerm returns log p(x_j | c) of row i of b, exactly as JointLogLikelihood adds it: 0 for a
// missing (NULL, NaN, ±Inf) value; floor selects the α = 1e-10 tables used for rows every class rules out.
func (s *Scorer) featureTerm(b *Batch, i, j, c int, floor bool) float64 {
	f := &s.Features[j]
	if f.Kind.Numeric() {
		x := b.Num[j][i]
		if !isValid(b.Valid[j], i) || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0
		}
		if f.Kind != Gaussian {
			return x * f.Weight[c]
		}
		d := x - f.Mean[c]
		return f.LogNorm[c] - d*d*f.HalfInvVar[c]
	}
	if f.Kind.IsText() {
		return f.textTerm(b.Sparse[j], i, c, len(s.Labels), floor)
	}
	lp := f.LogProb
	if floor && f.logProbFloor != nil {
		lp = f.logProbFloor
	}
	return lp[c][b.Cat[j][i]]
}

// Contribution is one feature's share of an explanation.
type Contribution struct {
	// Feature is empty for the prior term.
	Feature string
	// Value is the feature's value as text ("" when missing; "(unseen)" for an unseen category).
	Value string
	// LLR is log p(x_j | a) - log p(x_j | b), or log p(a) - log p(b) for the prior term.
	LLR float64
}

// Explain returns, for row i of b, the classes compared (two classes: the second against the first;
// more: the most probable against the runner-up) and each feature's log-likelihood ratio between them,
// sorted by magnitude, followed by the prior term. The ratios and the prior term add up to the log-odds
// b_a - b_b of JointLogLikelihood.
func (s *Scorer) Explain(b *Batch, i int, jll []float64) (a, bb int, out []Contribution) {
	n, K := b.N, len(s.Labels)
	if K == 2 {
		a, bb = 1, 0
	} else {
		a, bb = -1, -1
		for c := range K {
			v := jll[c*n+i]
			switch {
			case a < 0 || v > jll[a*n+i]:
				a, bb = c, a
			case bb < 0 || v > jll[bb*n+i]:
				bb = c
			}
		}
	}
	floor := true
	for c := range K {
		if !math.IsInf(s.rowScore(b, i, c, false), -1) {
			floor = false
			break
		}
	}
	for j, f := range s.Features {
		out = append(out, Contribution{Feature: f.Name, Value: s.valueText(b, i, j),
			LLR: s.featureTerm(b, i, j, a, floor) - s.featureTerm(b, i, j, bb, floor)})
	}
	sort.SliceStable(out, func(x, y int) bool { return math.Abs(out[x].LLR) > math.Abs(out[y].LLR) })
	out = append(out, Contribution{LLR: s.LogPrior[a] - s.LogPrior[bb]})
	return a, bb, out
}

func (s *Scorer) rowScore(b *Batch, i, c int, floor bool) float64 {
	v := s.LogPrior[c]
	for j := range s.Features {
		v += s.featureTerm(b, i, j, c, floor)
	}
	return v
}

func (s *Scorer) valueText(b *Batch, i, j int) string {
	f := &s.Features[j]
	if f.Kind.Numeric() {
		x := b.Num[j][i]
		if !isValid(b.Valid[j], i) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	if f.Kind.IsText() {
		sp := b.Sparse[j]
		n := 0.0
		for e := sp.Off[i]; e < sp.Off[i+1]; e++ {
			n += sp.Val[e]
		}
		return strconv.FormatFloat(n, 'g', -1, 64) + " known terms"
	}
	switch v := b.Cat[j][i]; {
	case v == f.Missing():
		return ""
	case v == f.Unseen():
		return "(unseen)"
	default:
		return f.Values[v]
	}
}

// LogEvidence returns log p(x) = log Σ_c p(c) p(x | c) for row i (seed 004's log-sum-exp).
func LogEvidence(jll []float64, n, K, i int) float64 {
	mx, sum := shiftedExpSum(jll, n, K, i, nil)
	return mx + math.Log(sum)
}

// Informative is one of a class's most informative feature values.
type Informative struct {
	Class, Feature, Value string
	// LLR is log p(value | class) minus the largest log p(value | other class); for a Gaussian feature
	// the value is the class mean.
	LLR float64
}

// MostInformative lists, per class, the top feature values by LLR.
func MostInformative(s *Scorer, top int) []Informative {
	var out []Informative
	K := len(s.Labels)
	for c := range K {
		var cand []Informative
		for _, f := range s.Features {
			if f.Kind.Counted() {
				at := func(d int) float64 { return f.Weight[d] }
				cand = append(cand, Informative{Class: s.Labels[c], Feature: f.Name, Value: "(one count)", LLR: at(c) - bestOther(K, c, at)})
				continue
			}
			if f.Kind.IsText() {
				K := len(s.Labels)
				for v, term := range f.Values {
					at := func(d int) float64 { return f.TermLogProb[v*K+d] }
					cand = append(cand, Informative{Class: s.Labels[c], Feature: f.Name, Value: term, LLR: at(c) - bestOther(K, c, at)})
				}
				continue
			}
			if f.Kind == Gaussian {
				x := f.Mean[c]
				at := func(d int) float64 { dx := x - f.Mean[d]; return f.LogNorm[d] - dx*dx*f.HalfInvVar[d] }
				cand = append(cand, Informative{Class: s.Labels[c], Feature: f.Name, Value: "mean " + strconv.FormatFloat(x, 'g', 6, 64),
					LLR: at(c) - bestOther(K, c, at)})
				continue
			}
			for v, value := range f.Values {
				at := func(d int) float64 { return f.LogProb[d][v] }
				cand = append(cand, Informative{Class: s.Labels[c], Feature: f.Name, Value: value, LLR: at(c) - bestOther(K, c, at)})
			}
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].LLR > cand[b].LLR })
		out = append(out, cand[:min(top, len(cand))]...)
	}
	return out
}

func bestOther(K, c int, at func(int) float64) float64 {
	best := math.Inf(-1)
	for d := range K {
		if d != c {
			best = math.Max(best, at(d))
		}
	}
	return best
}

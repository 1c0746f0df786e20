package sqlnb

import (
	"fmt"
	"math"
)

// forgetTolerance is the rounding Subtract accepts, relative to the values a result is computed from: a
// weight, sum or second moment (M2, a co-moment's diagonal) that comes out below zero by at most
// forgetTolerance × the combined statistic it was subtracted from is rounding and becomes 0; further below
// zero, the rows to forget were not part of the model (ErrCannotForget).
const forgetTolerance = 1e-9

// subCount returns a - b for the row counts of a statistic (what names it), an error if it would be negative.
func subCount(what string, a, b int64) (int64, error) {
	if b > a {
		return 0, fmt.Errorf("%s would be %d (%d - %d): more rows to forget than the model counted", what, a-b, a, b)
	}
	return a - b, nil
}

// subSum returns a - b for a non-negative sum (a weight, a count column's total): a result below zero by at
// most forgetTolerance × a is rounding and gives 0.
func subSum(what string, a, b float64) (float64, error) {
	d := a - b
	if d < 0 {
		if -d <= forgetTolerance*math.Abs(a) {
			return 0, nil
		}
		return 0, fmt.Errorf("%s would be %g (%g - %g): more to forget than the model counted", what, d, a, b)
	}
	return d, nil
}

// emptySum checks the sum left where no row is left: 0, within rounding (forgetTolerance × the sum before);
// anything else says the rows forgotten were not those trained.
func emptySum(what string, left, before float64) error {
	if math.Abs(left) <= forgetTolerance*math.Abs(before) {
		return nil
	}
	return fmt.Errorf("%s %g is left where no row is: the rows to forget differ from the rows trained", what, left)
}

// chanUnmerge is chanMerge's inverse, Chan, Golub and LeVeque's pairwise update solved for part a: given the
// combined (n, mean, M2) and part b's (nb, mb, M2b),
//
//	na = n - nb,  ma = mean + (mean - mb)·nb/na,  M2a = M2 - M2b - d²·na·nb/n  with d = mb - ma.
//
// na below zero (beyond rounding) is an error; na = 0 — for weights that are not whole numbers also na
// within rounding of 0, forgetTolerance × n — gives (0, 0, 0). An M2a below zero by at most
// forgetTolerance × (M2 + M2b + d²·na·nb/n) is rounding and gives 0; further below, an error. what names
// the statistic.
func chanUnmerge(what string, n, mean, m2, nb, mb, m2b float64) (na, ma, m2a float64, err error) {
	if nb == 0 {
		return n, mean, m2, nil
	}
	if na, ma, err = meanUnmerge(what, n, mean, nb, mb); err != nil || na == 0 {
		return na, ma, 0, err
	}
	d := mb - ma
	corr := d * d * na * nb / n
	m2a = m2 - m2b - corr
	if m2a < 0 {
		if -m2a > forgetTolerance*(m2+m2b+corr) {
			return 0, 0, 0, fmt.Errorf("%s: the second moment M2 would be %g (below zero beyond rounding): the rows to forget differ from the rows trained", what, m2a)
		}
		m2a = 0
	}
	return na, ma, m2a, nil
}

// meanUnmerge is the mean part of chanUnmerge: na = n - nb, ma = mean + (mean - mb)·nb/na.
func meanUnmerge(what string, n, mean, nb, mb float64) (na, ma float64, err error) {
	if nb == 0 {
		return n, mean, nil
	}
	if na, err = subSum(what+" count", n, nb); err != nil {
		return 0, 0, err
	}
	counts := n == math.Trunc(n) && nb == math.Trunc(nb) // whole numbers subtract exactly
	if na == 0 || (!counts && na <= forgetTolerance*n) {
		return 0, 0, nil
	}
	return na, mean + (mean-mb)*nb/na, nil
}

// The tables' Subtract functions (Table.Subtract), next to each family's Merge.

func subtractGaussian(x, g *GaussianStat) error {
	n, err := subCount("the count of non-NULL values", x.Count, g.Count)
	if err != nil {
		return err
	}
	_, mean, m2, err := chanUnmerge("Gaussian", float64(x.Count), x.Mean, x.M2, float64(g.Count), g.Mean, g.M2)
	if err != nil {
		return err
	}
	w, wmean, wm2, err := chanUnmerge("weighted Gaussian", x.Weight, x.WMean, x.WM2, g.Weight, g.WMean, g.WM2)
	if err != nil {
		return err
	}
	switch n {
	case 0: // no value left: as training gives a class without a value of the feature
		if err := emptySum("weight", w, x.Weight); err != nil {
			return err
		}
		mean, m2, w, wmean, wm2 = 0, 0, 0, 0, 0
	case 1: // one value has no spread
		m2, wm2 = 0, 0
	}
	if w == 0 {
		wmean, wm2 = 0, 0
	}
	*x = GaussianStat{Feature: x.Feature, Class: x.Class, Count: n, Mean: mean, M2: m2, Weight: w, WMean: wmean, WM2: wm2}
	return nil
}

func subtractPoisson(x, p *PoissonStat) error {
	n, err := subCount("the count of non-NULL values", x.Count, p.Count)
	if err != nil {
		return err
	}
	_, mean, err := meanUnmerge("Poisson", float64(x.Count), x.Mean, float64(p.Count), p.Mean)
	if err != nil {
		return err
	}
	w, wmean, err := meanUnmerge("weighted Poisson", x.Weight, x.WMean, p.Weight, p.WMean)
	if err != nil {
		return err
	}
	if n == 0 {
		if err := emptySum("weight", w, x.Weight); err != nil {
			return err
		}
		mean, w = 0, 0
	}
	if w == 0 {
		wmean = 0
	}
	// A mean of non-negative counts below zero is rounding only when tiny against the mean before.
	for _, v := range []*float64{&mean, &wmean} {
		if *v < 0 {
			if -*v > forgetTolerance*math.Max(x.Mean, x.WMean) {
				return fmt.Errorf("the mean count would be %g, below zero: the rows to forget differ from the rows trained", *v)
			}
			*v = 0
		}
	}
	*x = PoissonStat{Feature: x.Feature, Class: x.Class, Count: n, Mean: mean, Weight: w, WMean: wmean}
	return nil
}

func subtractCategory(x, n *CategoryCount) error {
	c, err := subCount("the count", x.Count, n.Count)
	if err != nil {
		return err
	}
	w, err := subSum("the weight", x.Weight, n.Weight)
	if err != nil {
		return err
	}
	if c == 0 {
		if err := emptySum("weight", w, x.Weight); err != nil {
			return err
		}
		w = 0
	}
	x.Count, x.Weight = c, w
	return nil
}

func subtractTotal(x, t *CountStat) error {
	v, err := subSum("the total", x.Total, t.Total)
	x.Total = v
	return err
}

func subtractTerm(x, t *TermCount) error {
	var err error
	c, d, p := x.Count, x.Docs, x.Present
	if c, err = subCount("the occurrences", c, t.Count); err != nil {
		return err
	}
	if d, err = subCount("the documents", d, t.Docs); err != nil {
		return err
	}
	if p, err = subCount("the documents where the term is present", p, t.Present); err != nil {
		return err
	}
	w, err := subSum("the weight", x.Weight, t.Weight)
	if err != nil {
		return err
	}
	if c == 0 && d == 0 {
		if err := emptySum("weight", w, x.Weight); err != nil {
			return err
		}
		w = 0
	}
	x.Count, x.Docs, x.Present, x.Weight = c, d, p, w
	return nil
}

// subtractCoMoment inverts the co-moment merge: C_a = C - C_b - dx·dy·w_a·w_b/w with dx, dy the differences
// of b's and a's means; a diagonal below zero beyond rounding is an error.
func subtractCoMoment(x, r *CoMoment) error {
	n, err := subCount("the count of complete rows", x.Count, r.Count)
	if err != nil {
		return err
	}
	if r.Weight == 0 {
		x.Count = n
		return nil
	}
	w, mx, err := meanUnmerge("the co-moment's", x.Weight, x.Mean, r.Weight, r.Mean)
	if err != nil {
		return err
	}
	_, my, _ := meanUnmerge("the co-moment's", x.Weight, x.OtherMean, r.Weight, r.OtherMean)
	if n == 0 || w == 0 {
		if n == 0 {
			if err := emptySum("weight", w, x.Weight); err != nil {
				return err
			}
		}
		*x = CoMoment{Feature: x.Feature, Class: x.Class, Other: x.Other, Count: n}
		return nil
	}
	dx, dy := r.Mean-mx, r.OtherMean-my
	corr := dx * dy * w * r.Weight / x.Weight
	c := x.CoMoment - r.CoMoment - corr
	if n == 1 {
		c = 0 // one row has no spread
	}
	if x.Feature == x.Other && c < 0 {
		if -c > forgetTolerance*(x.CoMoment+r.CoMoment+math.Abs(corr)) {
			return fmt.Errorf("the second moment would be %g (below zero beyond rounding): the rows to forget differ from the rows trained", c)
		}
		c = 0
	}
	x.Count, x.Weight, x.Mean, x.OtherMean, x.CoMoment = n, w, mx, my, c
	return nil
}

// Subtract removes the statistics of part (a model of rows that m was trained on, as Fit or the training
// scan computes it) from m: class counts and weights subtract, and every family's statistics rows with their
// table's Subtract (counts subtract; moments by the inverse of Chan et al.'s update). A class whose count
// reaches 0 is dropped with its statistics, as is a categorical value or term no row has any more, so the
// result is the model of the remaining rows. Guards: a count or weight below zero, a class, value or term m
// never counted, a variance below zero beyond rounding (forgetTolerance) are errors wrapping
// ErrCannotForget naming the model, class and feature. Rows that were never trained but happen to fit
// inside m's counts cannot be detected. A fitted model (logistic regression) cannot forget: ErrNotMergeable.
func Subtract(m, part *Model) (*Model, error) {
	if err := mergeable(m); err != nil {
		return nil, err
	}
	out := *m
	out.Generation = newGeneration()
	var err error
	if out.SkippedRows, err = subCount("the rows skipped for a NULL label", m.SkippedRows, part.SkippedRows); err != nil {
		return nil, fmt.Errorf("%w: model %q: %v", ErrCannotForget, m.Name, err)
	}
	if out.IncompleteRows, err = subCount("the rows left out for a missing value", m.IncompleteRows, part.IncompleteRows); err != nil {
		return nil, fmt.Errorf("%w: model %q: %v", ErrCannotForget, m.Name, err)
	}
	idx := m.ClassIndex()
	classes := append([]Class(nil), m.Classes...)
	for _, c := range part.Classes {
		i, ok := idx[c.Label]
		if !ok {
			return nil, fmt.Errorf("%w: model %q has no class %q: the rows to forget were not trained into it", ErrCannotForget, m.Name, c.Label)
		}
		x := &classes[i]
		n, err := subCount("the count", x.Count, c.Count)
		if err == nil {
			var w float64
			if w, err = subSum("the weight", x.Weight, c.Weight); err == nil && n == 0 {
				err = emptySum("weight", w, x.Weight)
				w = 0
			}
			if m.Weight == "" {
				w = float64(n)
			}
			if n > 0 && w == 0 && err == nil {
				err = fmt.Errorf("its %d remaining row(s) would all have weight 0 in weight column %q, so it could never be predicted: "+
					"forget those rows as well, or train the model again on the rows wanted", n, m.Weight)
			}
			x.Count, x.Weight = n, w
		}
		if err != nil {
			return nil, fmt.Errorf("%w: model %q, class %q: %v", ErrCannotForget, m.Name, c.Label, err)
		}
	}
	gone := map[string]bool{}
	out.Classes, out.Rows = nil, 0
	for _, c := range classes {
		if c.Count == 0 {
			gone[c.Label] = true
			continue
		}
		out.Classes = append(out.Classes, c)
		out.Rows += c.Count
	}
	if out.Stats, err = subtractStats(m, part.Stats, gone); err != nil {
		return nil, err
	}
	if len(out.Classes) < 2 {
		return nil, fmt.Errorf("%w: model %q would keep %d class(es): a classifier needs at least two; forget fewer rows, or drop "+
			"the model (sqlnb models drop, nb_drop)", ErrCannotForget, m.Name, len(out.Classes))
	}
	return &out, nil
}

// mergeable returns ErrNotMergeable for a model whose parameters are fitted to the rows (logistic
// regression, or any model trained semi-supervised) and for a per-group model: their statistics neither
// merge nor subtract here.
func mergeable(m *Model) error {
	if len(m.Groups) > 0 {
		return errPerGroup(m)
	}
	if m.UnlabelledRows > 0 {
		return fmt.Errorf("%w: model %q was trained semi-supervised (EM): its statistics hold the posteriors of its own fit, "+
			"which adding, merging or forgetting rows would not refit; train semi-supervised on the rows wanted instead", ErrNotMergeable, m.Name)
	}
	for _, g := range byFamily(m.Features) {
		if _, ok := g.fam.(refitter); ok {
			return fmt.Errorf("%w: model %q has %s features: its parameters are fitted to the rows, not summed from them; "+
				"train on the rows wanted instead (merging and forgetting need summed statistics)", ErrNotMergeable, m.Name, g.feats[0].Kind)
		}
	}
	return nil
}

// errPerGroup refuses to add, merge or forget the rows of per-group model m.
func errPerGroup(m *Model) error {
	return fmt.Errorf("%w: model %q is a per-group model (by): adding, merging and forgetting rows work on single models; "+
		"train it again with --by on the rows wanted", ErrNotMergeable, m.Name)
}

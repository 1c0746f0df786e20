package sqlnb

import (
	"fmt"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The tables' Subtract functions (Table.Subtract), next to each family's Merge.

// Subtract removes the statistics of part (a model of rows that m was trained on, as Fit or the training
// scan computes it) from m: class counts and weights subtract, and every family's statistics rows with their
// table's Subtract (counts subtract; moments by the inverse of Chan et al.'s update). A class whose count
// reaches 0 is dropped with its statistics, as is a categorical value or term no row has any more, so the
// result is the model of the remaining rows. Guards: a count or weight below zero, a class, value or term m
// never counted, a variance below zero beyond rounding (forgetTolerance) are errors wrapping
// ErrCannotForget naming the model, class and feature. Rows that were never trained but happen to fit
// inside m's counts cannot be detected. A fitted model (logistic regression) cannot forget: ErrNotMergeable.
func Subtract(m, part *nb.Model) (*nb.Model, error) {
	if err := mergeable(m); err != nil {
		return nil, err
	}
	out := *m
	out.Generation = nb.NewGeneration()
	var err error
	if out.SkippedRows, err = nb.SubCount("the rows skipped for a NULL label", m.SkippedRows, part.SkippedRows); err != nil {
		return nil, fmt.Errorf("%w: model %q: %v", nb.ErrCannotForget, m.Name, err)
	}
	if out.IncompleteRows, err = nb.SubCount("the rows left out for a missing value", m.IncompleteRows, part.IncompleteRows); err != nil {
		return nil, fmt.Errorf("%w: model %q: %v", nb.ErrCannotForget, m.Name, err)
	}
	idx := m.ClassIndex()
	classes := append([]nb.Class(nil), m.Classes...)
	for _, c := range part.Classes {
		i, ok := idx[c.Label]
		if !ok {
			return nil, fmt.Errorf("%w: model %q has no class %q: the rows to forget were not trained into it", nb.ErrCannotForget, m.Name, c.Label)
		}
		x := &classes[i]
		n, err := nb.SubCount("the count", x.Count, c.Count)
		if err == nil {
			var w float64
			if w, err = nb.SubSum("the weight", x.Weight, c.Weight); err == nil && n == 0 {
				err = nb.EmptySum("weight", w, x.Weight)
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
			return nil, fmt.Errorf("%w: model %q, class %q: %v", nb.ErrCannotForget, m.Name, c.Label, err)
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
	if out.Stats, err = families.SubtractStats(m, part.Stats, gone); err != nil {
		return nil, err
	}
	if len(out.Classes) < 2 {
		return nil, fmt.Errorf("%w: model %q would keep %d class(es): a classifier needs at least two; forget fewer rows, or drop "+
			"the model (sqlnb models drop, nb_drop)", nb.ErrCannotForget, m.Name, len(out.Classes))
	}
	return &out, nil
}

// mergeable returns ErrNotMergeable for a model whose parameters are fitted to the rows (logistic
// regression, or any model trained semi-supervised) and for a per-group model: their statistics neither
// merge nor subtract here.
func mergeable(m *nb.Model) error {
	if len(m.Groups) > 0 {
		return errPerGroup(m)
	}
	if m.UnlabelledRows > 0 {
		return fmt.Errorf("%w: model %q was trained semi-supervised (EM): its statistics hold the posteriors of its own fit, "+
			"which adding, merging or forgetting rows would not refit; train semi-supervised on the rows wanted instead", nb.ErrNotMergeable, m.Name)
	}
	for _, g := range families.ByFamily(m.Features) {
		if _, ok := g.Family.(nb.Refitter); ok {
			return fmt.Errorf("%w: model %q has %s features: its parameters are fitted to the rows, not summed from them; "+
				"train on the rows wanted instead (merging and forgetting need summed statistics)", nb.ErrNotMergeable, m.Name, g.Features[0].Kind)
		}
	}
	return nil
}

// errPerGroup refuses to add, merge or forget the rows of per-group model m.
func errPerGroup(m *nb.Model) error {
	return fmt.Errorf("%w: model %q is a per-group model (by): adding, merging and forgetting rows work on single models; "+
		"train it again with --by on the rows wanted", nb.ErrNotMergeable, m.Name)
}

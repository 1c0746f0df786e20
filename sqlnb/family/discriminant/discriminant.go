package discriminant

import (
	"fmt"
	"math"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The kinds of the discriminant family: the features of a model form one vector x, Gaussian given the
// class, x | c ~ N(μ_c, Σ_c) (seed 003).
const (
	// LDA: one covariance Σ shared by every class (linear discriminant analysis): the class scores are linear
	// in x, δ_c(x) = log π_c + (μ_c - x̄)ᵀ Σ⁻¹ (x - x̄) - ½ (μ_c - x̄)ᵀ Σ⁻¹ (μ_c - x̄).
	LDA nb.Kind = "lda"
	// QDA: a covariance per class (quadratic discriminant analysis): the class scores are the log-densities
	// log π_c - ½ log|2π Σ_c| - ½ (x - μ_c)ᵀ Σ_c⁻¹ (x - μ_c).
	QDA nb.Kind = "qda"
)

// CoMoment holds the statistics of one pair of features (Feature, Other; Other = Feature on the diagonal)
// in one class, over the class's complete rows (every feature of the model present): the count, the
// (weighted) weight sum, both features' (weighted) means and the co-moment Σ w (x - Mean)(y - OtherMean).
// Each row carries what Chan et al.'s pairwise update needs, so rows of disjoint training sets merge
// exactly by key.
type CoMoment struct {
	Feature   string  `json:"feature"`
	Class     string  `json:"class"`
	Other     string  `json:"other"`
	Count     int64   `json:"count"`
	Weight    float64 `json:"weight"`
	Mean      float64 `json:"mean"`
	OtherMean float64 `json:"other_mean"`
	CoMoment  float64 `json:"comoment"`
}

// CoMomentTable is the discriminant features' statistics: nb.comoments, one row per class and pair j ≤ k.
var CoMomentTable = &nb.Table[CoMoment]{
	Name: "comoments",
	Key:  func(r *CoMoment) nb.RowKey { return nb.RowKey{Feature: r.Feature, Class: r.Class, Value: r.Other} },
	// Chan, Golub and LeVeque's pairwise rule for co-moments: C = C_a + C_b + dx dy n_a n_b / n.
	Merge: func(x, r *CoMoment) {
		x.Count += r.Count
		na, nb := x.Weight, r.Weight
		switch {
		case nb == 0:
			return
		case na == 0:
			x.Weight, x.Mean, x.OtherMean, x.CoMoment = r.Weight, r.Mean, r.OtherMean, r.CoMoment
			return
		}
		n := na + nb
		dx, dy := r.Mean-x.Mean, r.OtherMean-x.OtherMean
		x.CoMoment += r.CoMoment + dx*dy*na*nb/n
		x.Mean += dx * nb / n
		x.OtherMean += dy * nb / n
		x.Weight = n
	},
	Subtract: subtractCoMoment,
	Check: func(r *CoMoment) error {
		for _, v := range []float64{r.Weight, r.Mean, r.OtherMean, r.CoMoment} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nb.ErrNotFinite
			}
		}
		if r.Count < 0 || r.Weight < 0 || (r.Feature == r.Other && r.CoMoment < 0) {
			return fmt.Errorf("a count, weight or second moment is negative")
		}
		return nil
	},
}

type DiscriminantFamily struct{}

func (DiscriminantFamily) Kinds() []nb.KindInfo {
	accepts := func(k nb.Kind) func(nb.Column) error {
		return func(c nb.Column) error {
			if !nb.ClassifyType(c.Type).Numeric() {
				return fmt.Errorf("%w: feature %q has type %s: %s features must be numeric (leave it out with --features, or cast it)", nb.ErrBadType, c.Name, c.Type, k)
			}
			return nil
		}
	}
	return []nb.KindInfo{
		{Kind: LDA, Doc: "numeric columns, jointly normal per class with one shared covariance (LinearDiscriminantAnalysis)",
			Accepts: accepts(LDA), Alone: "covariance", CompleteRows: true},
		{Kind: QDA, Doc: "numeric columns, jointly normal per class with a covariance per class (QuadraticDiscriminantAnalysis)",
			Accepts: accepts(QDA), Alone: "covariance", CompleteRows: true},
	}
}

func (DiscriminantFamily) Tables() []nb.StatsTable               { return []nb.StatsTable{CoMomentTable} }
func (DiscriminantFamily) Check(_, _ []nb.Feature, _ bool) error { return nil }

// Validate: every class has a row for every pair of features j ≤ k.
func (DiscriminantFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	have := map[nb.RowKey]bool{}
	for _, r := range nb.RowsOf(m, CoMomentTable) {
		have[CoMomentTable.Key(&r)] = true
	}
	for _, c := range m.Classes {
		for _, p := range nb.Pairs(len(feats)) {
			if !have[nb.RowKey{Feature: feats[p.J].Name, Class: c.Label, Value: feats[p.K].Name}] {
				return fmt.Errorf("%w: model %q: no co-moment of features %q and %q in class %q", nb.ErrInvalidModel, m.Name, feats[p.J].Name, feats[p.K].Name, c.Label)
			}
		}
	}
	return nil
}

func (DiscriminantFamily) Summary(m *nb.Model) string {
	p := m.Params
	if m.Features[0].Kind == QDA {
		return fmt.Sprintf("reg_param %g, priors %s", p.Float("reg_param"), p.Text("priors"))
	}
	if p.Text("solver") == nb.SolverLSQR {
		return fmt.Sprintf("solver lsqr, shrinkage %g, priors %s", p.Float("shrinkage"), p.Text("priors"))
	}
	return fmt.Sprintf("solver svd, priors %s", p.Text("priors"))
}

// subtractCoMoment inverts the co-moment merge: C_a = C - C_b - dx·dy·w_a·w_b/w with dx, dy the differences
// of b's and a's means; a diagonal below zero beyond rounding is an error.
func subtractCoMoment(x, r *CoMoment) error {
	n, err := nb.SubCount("the count of complete rows", x.Count, r.Count)
	if err != nil {
		return err
	}
	if r.Weight == 0 {
		x.Count = n
		return nil
	}
	w, mx, err := nb.MeanUnmerge("the co-moment's", x.Weight, x.Mean, r.Weight, r.Mean)
	if err != nil {
		return err
	}
	_, my, _ := nb.MeanUnmerge("the co-moment's", x.Weight, x.OtherMean, r.Weight, r.OtherMean)
	if n == 0 || w == 0 {
		if n == 0 {
			if err := nb.EmptySum("weight", w, x.Weight); err != nil {
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
		if -c > nb.ForgetTolerance*(x.CoMoment+r.CoMoment+math.Abs(corr)) {
			return fmt.Errorf("the second moment would be %g (below zero beyond rounding): the rows to forget differ from the rows trained", c)
		}
		c = 0
	}
	x.Count, x.Weight, x.Mean, x.OtherMean, x.CoMoment = n, w, mx, my, c
	return nil
}

// ForgetRounding warns of variances that forgetting most of a class's rows leaves rounded (MomentRounding of
// the co-moments' diagonal).
func (DiscriminantFamily) ForgetRounding(before, after *nb.Model) []nb.RoundingWarning {
	read := func(m *nb.Model) map[[2]string][3]float64 {
		out := map[[2]string][3]float64{}
		for _, c := range nb.RowsOf(m, CoMomentTable) {
			if c.Feature == c.Other {
				out[[2]string{c.Feature, c.Class}] = [3]float64{float64(c.Count), c.Mean, c.CoMoment}
			}
		}
		return out
	}
	return nb.MomentRounding(read(before), read(after))
}

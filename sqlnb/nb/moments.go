package nb

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/sqlnb/sqlnb/queries"
)

// chanMerge merges (n, mean, M2) of two disjoint sets: n = na + nb, mean = ma + d nb/n, M2 = M2a + M2b +
// d² na nb / n with d = mb - ma (Chan, Golub and LeVeque).
func ChanMerge(na, ma, m2a, nb, mb, m2b float64) (float64, float64, float64) {
	switch {
	case nb == 0:
		return na, ma, m2a
	case na == 0:
		return nb, mb, m2b
	}
	n := na + nb
	d := mb - ma
	return n, ma + d*nb/n, m2a + m2b + d*d*na*nb/n
}

// MomentFeature is a feature of train_moments (queries.MomentFeature).
type MomentFeature = queries.MomentFeature

// welfordLoses reports whether the var_pop (covar_pop) of n values of mean mean and sum of squared
// deviations m2 lost digits: Welford's update is about |mean|/σ ulps off, so past 100 σ from 0 the moments
// are computed again about the class mean (a relative error of ~1e-14 at most stays). A spread of 0 is exact.
func WelfordLoses(n int64, mean, m2 float64) bool {
	return n > 1 && m2 > 0 && math.Abs(mean) > 100*math.Sqrt(m2/float64(n))
}

// nonfinite holds, per feature of a train_nonfinite scan, its count of infinite values, its count of NaNs
// and its largest finite |x|.
type nonfinite []sql.NullFloat64

// nonfiniteCounts runs the train_nonfinite scan over mf's columns of the training source.
func NonfiniteCounts(ctx context.Context, sc *Scan, mf []MomentFeature) (nonfinite, error) {
	data := queries.Nonfinite{From: sc.Plan.Src.From, Label: sc.Plan.Label.Name, Features: make([]queries.Feature, len(mf))}
	for i, f := range mf {
		data.Features[i].Name = f.Name
	}
	stmt, err := queries.Render("train_nonfinite.tmpl.sql", data)
	if err != nil {
		return nil, err
	}
	counts := make(nonfinite, 3*len(mf))
	ptrs := make([]any, len(counts))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	if err := sc.Conn.QueryRowContext(ctx, stmt, sc.Plan.Src.Args...).Scan(ptrs...); err != nil {
		return nil, err
	}
	return counts, nil
}

// infinite names the features of mf holding infinite values, with their counts.
func (c nonfinite) Infinite(mf []MomentFeature) []string {
	var out []string
	for i, f := range mf {
		if n := int64(c[3*i].Float64); n > 0 {
			out = append(out, fmt.Sprintf("%q (%d %s)", f.Name, n, map[bool]string{true: "row", false: "rows"}[n == 1]))
		}
	}
	return out
}

// huge names the features of mf whose values are too large for their squares (moments) to stay finite.
func (c nonfinite) Huge(mf []MomentFeature) []string {
	var out []string
	for i, f := range mf {
		if c[3*i+2].Float64 >= 1e150 {
			out = append(out, fmt.Sprintf("%q (|x| up to %.3g)", f.Name, c[3*i+2].Float64))
		}
	}
	return out
}

// requirePerClass checks that every feature of feats has a row for every class of m.
func RequirePerClass[T any](m *Model, feats []Feature, rows []T, key func(*T) RowKey) error {
	have := map[RowKey]bool{}
	for i := range rows {
		k := key(&rows[i])
		have[RowKey{k.Feature, k.Class, ""}] = true
	}
	for _, f := range feats {
		for _, c := range m.Classes {
			if !have[RowKey{f.Name, c.Label, ""}] {
				return fmt.Errorf("%w: model %q: no %s statistics for feature %q, class %q", ErrInvalidModel, m.Name, f.Kind, f.Name, c.Label)
			}
		}
	}
	return nil
}

func BestOther(K, c int, at func(int) float64) float64 {
	best := math.Inf(-1)
	for d := range K {
		if d != c {
			best = math.Max(best, at(d))
		}
	}
	return best
}

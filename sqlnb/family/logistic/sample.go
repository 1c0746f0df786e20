package logistic

import (
	"context"
	"fmt"
	"math"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Bounds of the rows a fit keeps in memory for its Hessian (the sample): at most lrSampleValues design
// values, and at most lrSampleWork multiply-adds per Hessian over them.
const (
	lrSampleValues = 4_000_000
	lrSampleWork   = 1_000_000_000
)

// lrSampleRows, when > 0, sets the sample's size (tests: a sampled fit on small data).
var lrSampleRows = 0

// standardise sets the center and scale of every number column (d.cols) from the sample's rows — their
// mean and standard deviation (two passes, in the sample's fixed order), the source's own when the sample
// is every row; the centre of the range and 1 when the sample is empty; the range's half when the sample's
// values are all equal but the source's are not — and standardises the sample's columns in place. Any
// center and scale give the same optimum (the penalty is rescaled with them); these keep Newton's steps
// well conditioned.
func standardise(ctx context.Context, sc *nb.Scan, lf []queries.LogisticFeature, feats []nb.Feature, d *logisticDesign, sample *lrSample) error {
	for j := range d.cols {
		c := &d.cols[j]
		if !c.numeric {
			continue
		}
		x := sample.x[j]
		c.mean, c.scale = c.lo, 1
		if !c.constantLevel {
			c.mean = c.lo + (c.hi-c.lo)/2
			if len(x) > 0 {
				m := 0.0
				for _, v := range x {
					m += v
				}
				m /= float64(len(x))
				ss := 0.0
				for _, v := range x {
					ss += (v - m) * (v - m)
				}
				c.mean, c.scale = m, math.Sqrt(ss/float64(len(x)))
			}
			if !(c.scale > 0) {
				c.scale = (c.hi - c.lo) / 2
			}
		}
		if math.IsInf(c.mean, 0) || math.IsNaN(c.mean) || math.IsInf(c.scale, 0) || math.IsNaN(c.scale) {
			return logisticDiagnose(ctx, sc, lf, fmt.Errorf("%w: feature %q: its mean or variance is not finite", nb.ErrBadValue, feats[c.feature].Name))
		}
		inv := 1 / c.scale
		for i, v := range x {
			x[i] = (v - c.mean) * inv
		}
	}
	return nil
}

// logisticSample reads the rows the fit keeps for its Hessian (train_logistic_sample): every complete
// labelled row if there are at most the budget's (sampled false), else a fixed subset of about that many
// chosen by hash. args returns the shared parameters followed by the template's own, numbered from
// shared + 1. With the Go kernel (lp) the rows go through nb_logistic_pass, which keeps them.
func logisticSample(ctx context.Context, sc *nb.Scan, d *logisticDesign, data queries.Logistic, K, dim int, args func(...any) []any, shared int,
	lp *LogisticPass, token string) (*lrSample, bool, error) {
	pairs := (K - 1) * K / 2
	// 500 rows per coefficient (at least 100,000: reading the sample costs a scan whatever its size, and a
	// larger one saves passes — 5 instead of 7 for 20 features and two classes) make the sample's Hessian
	// within a few percent of the source's, so a step gains one to two digits; within the bounds of memory
	// and work.
	size := int64(min(lrSampleValues/dim, lrSampleWork/(pairs*dim*(dim+1)/2), max(100_000, 500*(K-1)*dim)))
	if lrSampleRows > 0 {
		size = int64(lrSampleRows)
	}
	sampled := d.rows > size
	const mod = 1 << 20
	keep := int64(mod)
	if sampled {
		keep = max(1, size*mod/d.rows)
	}
	m := queries.LogisticSample{Logistic: data, Sample: sampled, Mod: sc.Param(shared + 1), Keep: sc.Param(shared + 2)}
	if lp != nil {
		m.Token = queries.Literal(token)
	}
	stmt, err := queries.Render("train_logistic_sample.tmpl.sql", m)
	if err != nil {
		return nil, false, err
	}
	var own []any
	if sampled {
		own = []any{int64(mod), keep}
	}
	if lp != nil {
		var n int64
		if err := sc.Conn.QueryRowContext(ctx, stmt, args(own...)...).Scan(&n); err != nil {
			return nil, false, fmt.Errorf("logistic regression sample: %w", err)
		}
		return lp.takeSample(), sampled, nil
	}
	rows, err := nb.QueryRows(ctx, sc.Conn, stmt, args(own...)...)
	if err != nil {
		return nil, false, fmt.Errorf("logistic regression sample: %w", err)
	}
	defer rows.Close()
	weighted := sc.Plan.Weight != ""
	s := &lrSample{x: make([][]float64, dim-1)}
	var k int64
	var w float64
	vals := make([]float64, dim-1)
	ptrs := []any{&k}
	if weighted {
		ptrs = append(ptrs, &w)
	}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, false, fmt.Errorf("logistic regression sample: %w", err)
		}
		s.k = append(s.k, int32(k))
		if weighted {
			s.w = append(s.w, w)
		} else {
			w = 1
		}
		s.weight += w
		for j, v := range vals {
			s.x[j] = append(s.x[j], v)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("logistic regression sample: %w", err)
	}
	return s, sampled, nil
}

package discriminant

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Train runs train_comoments: per (fold,) class the count and weight of the complete rows, every feature's
// mean and every pair's co-moment; rows with a missing feature value (NULL or NaN) are left out and
// counted (Model.IncompleteRows). Infinite values are an error naming their columns.
func (DiscriminantFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	names := make([]string, len(feats))
	for i, f := range feats {
		names[i] = f.Name
	}
	// First as if every row were complete (one GROUP BY class, as fast as the bare one); if a feature has
	// NULLs or NaNs, again with the completeness of each row as a group key. The classes and statistics
	// are kept from the second scan only.
	done := sc.Done
	complete, err := comomentScan(ctx, sc, names, false)
	if err != nil || complete {
		return err
	}
	if !done {
		// The discriminant kinds are alone in their models: what the first scan recorded is all there is.
		sc.Parts, sc.Order = map[int64]*nb.Partial{}, nil
	}
	_, err = comomentScan(ctx, sc, names, true)
	return err
}

// comomentRow is one row of train_comoments as Scan fills it: (fold,) class, inc, then the values.
type comomentRow struct {
	fold  int64
	class sql.NullString
	inc   bool
	vals  []sql.NullFloat64
	ptrs  []any
}

func newComomentRow(sc *nb.Scan, values int) *comomentRow {
	r := &comomentRow{vals: make([]sql.NullFloat64, values)}
	if sc.Fold != "" {
		r.ptrs = append(r.ptrs, &r.fold)
	}
	r.ptrs = append(r.ptrs, &r.class, &r.inc)
	for i := range r.vals {
		r.ptrs = append(r.ptrs, &r.vals[i])
	}
	return r
}

// needsShift reports whether covar_pop (Welford's update) lost digits for a class's feature in stats
// (welfordLoses).
func needsShift(stats map[int64][]CoMoment) bool {
	for _, part := range stats {
		for _, r := range part {
			if r.Feature == r.Other && nb.WelfordLoses(r.Count, r.Mean, r.CoMoment) {
				return true
			}
		}
	}
	return false
}

// shiftedCoMoments computes the unweighted means and co-moments of stats again by train_comoments' two-scan
// form (Shift), matched by fold, class and feature pair.
func shiftedCoMoments(ctx context.Context, sc *nb.Scan, names []string, missing bool, stats map[int64][]CoMoment) error {
	ps := nb.Pairs(len(names))
	rows, err := sc.Query(ctx, "train_comoments.tmpl.sql", queries.Comoments{Train: sc.Train(), Features: names, Pairs: ps, Missing: missing, Shift: true})
	if err != nil {
		return fmt.Errorf("compute co-moments: %w", err)
	}
	defer rows.Close()
	m := len(names)
	width := m + len(ps)
	if !missing {
		width += m
	}
	row := newComomentRow(sc, 1+width)
	vals := row.vals
	type key struct {
		fold  int64
		class string
	}
	type scanned struct {
		n     int64
		means map[string]float64
		co    map[[2]string]float64
	}
	fresh := map[key]scanned{}
	for rows.Next() {
		if err := rows.Scan(row.ptrs...); err != nil {
			return fmt.Errorf("compute co-moments: %w", err)
		}
		if row.inc || !row.class.Valid {
			continue
		}
		n, v := vals[0].Float64, vals[1:]
		c := scanned{n: int64(n), means: map[string]float64{}, co: map[[2]string]float64{}}
		for j, name := range names {
			c.means[name] = v[j].Float64
		}
		for p, pr := range ps {
			c.co[[2]string{names[pr.J], names[pr.K]}] = v[m+p].Float64 * n
		}
		fresh[key{row.fold, row.class.String}] = c
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("compute co-moments: %w", err)
	}
	for f, part := range stats {
		for i, r := range part {
			c, ok := fresh[key{f, r.Class}]
			mean, other, co := c.means[r.Feature], c.means[r.Other], c.co[[2]string{r.Feature, r.Other}]
			if !ok || c.n != r.Count || math.IsNaN(mean+other+co) || math.IsInf(mean+other+co, 0) {
				continue // a class the second scan did not see the same (a source that changes): keep the first
			}
			part[i].Mean, part[i].OtherMean, part[i].CoMoment = mean, other, co
			if r.Feature == r.Other {
				part[i].CoMoment = math.Max(0, co)
			}
		}
	}
	return nil
}

// comomentScan runs train_comoments; without missing it reports whether every row was complete, and keeps
// nothing if not.
func comomentScan(ctx context.Context, sc *nb.Scan, names []string, missing bool) (bool, error) {
	feats := names
	ps := nb.Pairs(len(feats))
	rows, err := sc.Query(ctx, "train_comoments.tmpl.sql", queries.Comoments{Train: sc.Train(), Features: names, Pairs: ps, Missing: missing})
	if err != nil {
		if strings.Contains(err.Error(), "out of range") {
			return false, nb.DiscriminantDiagnose(ctx, sc, names, err)
		}
		return false, fmt.Errorf("compute co-moments: %w", err)
	}
	defer rows.Close()
	weighted := sc.Plan.Weight != ""
	m := len(feats)
	width := m + len(ps)
	head := 1
	if weighted {
		width += m
		head = 4
	}
	if !missing {
		width += m // every feature's count of non-NULL values
	}
	row := newComomentRow(sc, head+width)
	vals := row.vals
	stats := map[int64][]CoMoment{}
	finite, complete := true, true
	for rows.Next() {
		if err := rows.Scan(row.ptrs...); err != nil {
			return false, fmt.Errorf("compute co-moments: %w", err)
		}
		fold, class, inc := row.fold, row.class, row.inc
		n := int64(vals[0].Float64)
		if inc {
			if weighted {
				if err := nb.CheckWeights(sc.Plan.Weight, n, int64(vals[1].Float64), vals[2]); err != nil {
					return false, err
				}
			}
			if !sc.Done {
				sc.Part(fold).NoteIncomplete(class, n)
			}
			continue
		}
		ok, err := sc.AddClass(fold, class, vals[:head])
		if err != nil || !ok {
			if err != nil {
				return false, err
			}
			continue
		}
		v := vals[head:]
		if !missing {
			for _, cnt := range v[width-m:] {
				complete = complete && int64(cnt.Float64) == n
			}
		}
		w := float64(n)
		mean := make([]float64, m)
		co := make([]float64, len(ps))
		if weighted {
			w = vals[3].Float64
			shift := v[m+len(ps):]
			for j := range m {
				mean[j] = shift[j].Float64
				if w > 0 {
					mean[j] += v[j].Float64 / w
				}
			}
			for p, pr := range ps {
				if w > 0 {
					co[p] = v[m+p].Float64 - v[pr.J].Float64*v[pr.K].Float64/w
				}
			}
		} else {
			for j := range m {
				mean[j] = v[j].Float64
			}
			for p := range ps {
				co[p] = v[m+p].Float64 * float64(n)
			}
		}
		for p, pr := range ps {
			r := CoMoment{Feature: names[pr.J], Class: class.String, Other: names[pr.K], Count: n, Weight: w,
				Mean: mean[pr.J], OtherMean: mean[pr.K], CoMoment: co[p]}
			if pr.J == pr.K {
				r.CoMoment = math.Max(0, r.CoMoment)
			}
			if math.IsNaN(r.CoMoment + r.Mean + r.OtherMean) {
				complete = complete && missing // a NaN value: the rows are not all complete
			}
			finite = finite && !math.IsNaN(r.CoMoment+r.Mean+r.OtherMean) && !math.IsInf(r.CoMoment+r.Mean+r.OtherMean, 0)
			stats[fold] = append(stats[fold], r)
		}
	}
	if err := rows.Err(); err != nil {
		if strings.Contains(err.Error(), "out of range") {
			return false, nb.DiscriminantDiagnose(ctx, sc, names, err)
		}
		return false, fmt.Errorf("compute co-moments: %w", err)
	}
	if !complete {
		return false, nil
	}
	if !finite {
		return false, nb.DiscriminantDiagnose(ctx, sc, names, fmt.Errorf("%w: a mean or co-moment is not finite", nb.ErrBadValue))
	}
	if !weighted && needsShift(stats) {
		if err := shiftedCoMoments(ctx, sc, names, missing, stats); err != nil {
			return false, err
		}
	}
	for fold, s := range stats {
		nb.AddRows(sc.Part(fold).Stats, CoMomentTable, s...)
	}
	return true, nil
}

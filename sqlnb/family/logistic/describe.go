package logistic

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// designCol is one column of the design matrix: a number feature standardised ((x - mean)/scale: the mean
// and spread of the fit's sample) or one level's indicator.
type designCol struct {
	Expr          string
	Raw           string // train_logistic_pass's and train_logistic_sample's: a number feature's value as DOUBLE (standardised in Go)
	feature       int
	level         string
	mean, scale   float64
	lo, hi        float64 // a number feature's range over the complete labelled rows (the first pass)
	numeric       bool
	constantLevel bool
}

// logisticDesign is what the first pass found: the classes' weights, the design columns.
type logisticDesign struct {
	labels []string
	weight []float64
	rows   int64 // complete labelled rows
	cols   []designCol
	levels [][]string // per feature: its levels (categorical), sorted
}

func describeLogistic(ctx context.Context, sc *nb.Scan, feats []nb.Feature) (*logisticDesign, error) {
	lf := make([]queries.LogisticFeature, len(feats))
	for i, f := range feats {
		lf[i] = queries.LogisticFeature{Name: f.Name, Numeric: isNumeric(f)}
	}
	rows, err := sc.Query(ctx, "train_logistic_describe.tmpl.sql", queries.LogisticDescribe{Train: sc.Train(), Features: lf})
	if err != nil {
		if strings.Contains(err.Error(), "out of range") {
			return nil, logisticDiagnose(ctx, sc, lf, err)
		}
		return nil, fmt.Errorf("describe logistic features: %w", err)
	}
	defer rows.Close()
	head := 1
	if sc.Plan.Weight != "" {
		head = 4
	}
	var class sql.NullString
	var inc bool
	vals := make([]sql.NullFloat64, head)
	num := make([]sql.NullFloat64, 2*len(feats))
	lists := make([]any, len(feats))
	ptrs := []any{&class, &inc}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for i, f := range lf {
		if f.Numeric {
			ptrs = append(ptrs, &num[2*i], &num[2*i+1])
		} else {
			ptrs = append(ptrs, &lists[i])
		}
	}
	d := &logisticDesign{levels: make([][]string, len(feats))}
	lo, hi := make([]float64, len(feats)), make([]float64, len(feats))
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	levelSet := make([]map[string]bool, len(feats))
	for i := range levelSet {
		levelSet[i] = map[string]bool{}
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("describe logistic features: %w", err)
		}
		n := int64(vals[0].Float64)
		if inc {
			if sc.Plan.Weight != "" {
				if err := nb.CheckWeights(sc.Plan.Weight, n, int64(vals[1].Float64), vals[2]); err != nil {
					return nil, err
				}
			}
			sc.Part(0).NoteIncomplete(class, n)
			continue
		}
		ok, err := sc.AddClass(0, class, vals)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		w := float64(n)
		if sc.Plan.Weight != "" {
			w = vals[3].Float64
		}
		d.labels = append(d.labels, class.String)
		d.weight = append(d.weight, w)
		d.rows += n
		for i, f := range lf {
			if f.Numeric {
				if n > 0 {
					lo[i], hi[i] = math.Min(lo[i], num[2*i].Float64), math.Max(hi[i], num[2*i+1].Float64)
				}
				continue
			}
			list, _ := lists[i].([]any)
			for _, v := range list {
				if s, ok := v.(string); ok {
					levelSet[i][s] = true
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		if strings.Contains(err.Error(), "out of range") {
			return nil, logisticDiagnose(ctx, sc, lf, err)
		}
		return nil, fmt.Errorf("describe logistic features: %w", err)
	}
	if sc.Plan.Weight != "" {
		// Before the fit, which starts at the intercepts log(w_c/w_0): checkTrained's error, not a log of 0.
		for c, w := range d.weight {
			if w == 0 {
				return nil, nb.ZeroWeightClass(d.labels[c], sc.Plan.Weight)
			}
		}
	}
	for i, f := range feats {
		if lf[i].Numeric {
			if d.rows > 0 && (math.IsInf(lo[i], 0) || math.IsInf(hi[i], 0) || math.IsInf(hi[i]-lo[i], 0)) {
				return nil, logisticDiagnose(ctx, sc, lf, fmt.Errorf("%w: feature %q: its range is not finite", nb.ErrBadValue, f.Name))
			}
			d.cols = append(d.cols, designCol{feature: i, numeric: true, lo: lo[i], hi: hi[i], scale: 1, constantLevel: !(hi[i] > lo[i])})
			continue
		}
		d.levels[i] = nb.SortedKeys(levelSet[i])
		for _, l := range d.levels[i][min(1, len(d.levels[i])):] {
			d.cols = append(d.cols, designCol{feature: i, level: l, scale: 1})
		}
	}
	return d, nil
}

// logisticDiagnose names the number columns with infinite values (or values whose squares overflow).
func logisticDiagnose(ctx context.Context, sc *nb.Scan, lf []queries.LogisticFeature, cause error) error {
	var names []string
	for _, f := range lf {
		if f.Numeric {
			names = append(names, f.Name)
		}
	}
	return nb.DiscriminantDiagnose(ctx, sc, names, cause)
}

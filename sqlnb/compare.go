package sqlnb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// CompareSpec says what to compare: the kinds of model trained on growing training sets drawn from one
// source and tested on a part of it held out (seed 004: Ng & Jordan's generative and discriminative
// learning curves).
type CompareSpec struct {
	// Train is the training request (Source, Label, Features, Weight, Params); its Kind is replaced by each
	// of Kinds in turn.
	Train TrainSpec
	Kinds []nb.Kind
	// Sizes are the training set sizes (rows drawn from the training pool, nested: a larger set contains the
	// smaller ones).
	Sizes []int
	// TestFraction of the rows (by a hash of the whole row and Seed) is held out for testing (default 0.3).
	TestFraction float64
	// Repeats draws that many splits (seeds Seed, Seed+1, ...) and averages the metrics (default 1).
	Repeats int
	Seed    int64
}

// ComparePoint is one point of a learning curve: a kind trained on Size rows (the mean of the repeats),
// its test metrics (accuracy, log_loss, brier, f1_macro: mean and sample standard deviation over the
// repeats, NaN for one), or Err if the model could not be trained (a class missing from a small training set, a
// singular covariance, separable classes without a penalty...) — with metrics, on some of the splits.
type ComparePoint struct {
	Kind     nb.Kind
	Size     int
	Rows     float64
	Mean, SD map[string]float64
	Err      string
}

// CompareResult holds the learning curves and the number of test rows per repeat.
type CompareResult struct {
	Points   []ComparePoint
	TestRows int64
	Duration time.Duration
}

// compareTable is the temporary table a comparison draws its splits from.
const compareTable = "__sqlnb_compare"

// Compare trains every kind of spec on every training size and scores the held-out rows with each model in
// one scan (the models are registered with reg, as cross-validation's folds are), per repeat: for a repeat
// the source is copied once into a temporary table with a hash-derived uniform number per row
// (compare_split), which picks the test rows and orders the training pool. Models are fitted, not stored.
func Compare(ctx context.Context, conn *sql.Conn, reg FoldRegistrar, spec CompareSpec) (*CompareResult, error) {
	start := time.Now()
	if err := spec.normalize(); err != nil {
		return nil, err
	}
	src, err := nb.ResolveSource(ctx, conn, spec.Train.Source)
	if err != nil {
		return nil, err
	}
	type key struct {
		k nb.Kind
		n int
	}
	vals := map[key]map[string][]float64{}
	rows := map[key][]float64{}
	errs := map[key]string{}
	failed := map[key]int{}
	var firstErr error // the first point's failure, for a run where every point failed
	res := &CompareResult{}
	drop, err := queries.Render("compare_drop.tmpl.sql", queries.TableName{Table: compareTable})
	if err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), drop)
	for r := range spec.Repeats {
		split, err := queries.Render("compare_split.tmpl.sql", queries.CompareSplit{Table: compareTable, From: src.From,
			Seed: len(src.Args) + 1, Fraction: len(src.Args) + 2})
		if err != nil {
			return nil, err
		}
		if _, err := conn.ExecContext(ctx, split, append(append([]any{}, src.Args...), spec.Seed+int64(r), spec.TestFraction)...); err != nil {
			return nil, fmt.Errorf("compare: split the source: %w", err)
		}
		var scorers []*Scorer
		var at []key
		for _, k := range spec.Kinds {
			for _, n := range spec.Sizes {
				sub, err := queries.Render("compare_subset.tmpl.sql", queries.CompareSubset{Table: compareTable, Size: n})
				if err != nil {
					return nil, err
				}
				t := spec.Train
				t.Model, t.Source, t.Kind = fmt.Sprintf("%s (%d rows)", k, n), sub, k
				m, err := Fit(ctx, conn, t)
				if err == nil {
					var s *Scorer
					if s, err = Compile(m); err == nil {
						scorers = append(scorers, s)
						at = append(at, key{k, n})
						rows[key{k, n}] = append(rows[key{k, n}], float64(m.Rows))
						continue
					}
				}
				if errors.Is(err, nb.ErrBadOption) && !errors.Is(err, nb.ErrOneClass) && r == 0 && n == spec.Sizes[0] {
					return nil, err // a kind that cannot model these features fails at every size
				}
				// The point's note: the reason, without the model name Fit and Compile put in front.
				msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("train %q: ", t.Model))
				errs[key{k, n}] = strings.TrimPrefix(msg, fmt.Sprintf("model %q: ", t.Model))
				failed[key{k, n}]++
				if firstErr == nil {
					firstErr = err
				}
			}
		}
		if len(scorers) == 0 {
			continue
		}
		metrics, n, err := compareMetrics(ctx, conn, reg, scorers, spec)
		if err != nil {
			return nil, err
		}
		res.TestRows = n
		for i, kk := range at {
			if vals[kk] == nil {
				vals[kk] = map[string][]float64{}
			}
			for name, v := range metrics[i] {
				vals[kk][name] = append(vals[kk][name], v)
			}
		}
	}
	for _, k := range spec.Kinds {
		for _, n := range spec.Sizes {
			kk := key{k, n}
			pt := ComparePoint{Kind: k, Size: n, Mean: map[string]float64{}, SD: map[string]float64{}}
			if len(rows[kk]) == 0 {
				pt.Err = errs[kk]
				res.Points = append(res.Points, pt)
				continue
			}
			if failed[kk] > 0 {
				pt.Err = fmt.Sprintf("%d of %d splits failed: %s", failed[kk], spec.Repeats, errs[kk])
			}
			pt.Rows, _ = meanSD(rows[kk])
			for name, xs := range vals[kk] {
				pt.Mean[name], pt.SD[name] = meanSD(xs)
				if len(xs) < 2 {
					pt.SD[name] = math.NaN()
				}
			}
			res.Points = append(res.Points, pt)
		}
	}
	if !slices.ContainsFunc(res.Points, func(p ComparePoint) bool { return p.Rows > 0 }) && firstErr != nil {
		// Not one point: a table of notes and "0 test rows" with success would hide it.
		return nil, fmt.Errorf("compare: no kind could be fitted at any size: %w", firstErr)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// normalize fills in spec's defaults (TestFraction 0.3, Repeats 1) and checks it: some kinds and sizes,
// every size at least 2, the test fraction in (0, 1).
func (spec *CompareSpec) normalize() error {
	if len(spec.Kinds) == 0 || len(spec.Sizes) == 0 {
		return fmt.Errorf("%w: give the kinds to compare and the training sizes", nb.ErrBadOption)
	}
	if spec.TestFraction == 0 {
		spec.TestFraction = 0.3
	}
	if !(spec.TestFraction > 0 && spec.TestFraction < 1) {
		return fmt.Errorf("%w: test fraction %v: must be in (0, 1)", nb.ErrBadOption, spec.TestFraction)
	}
	if spec.Repeats < 1 {
		spec.Repeats = 1
	}
	for _, n := range spec.Sizes {
		if n < 2 {
			return fmt.Errorf("%w: training size %d: must be at least 2", nb.ErrBadOption, n)
		}
	}
	return nil
}

// compareMetrics scores the test rows once per model (compare_test_rows, nb_cv_terms over the registered
// scorers) and aggregates each model's metrics in the same statement (cv_metrics); it returns them per
// model and the number of test rows.
func compareMetrics(ctx context.Context, conn *sql.Conn, reg FoldRegistrar, scorers []*Scorer, spec CompareSpec) ([]map[string]float64, int64, error) {
	name, release := reg.RegisterFolds(scorers)
	defer release()
	from, err := queries.Render("compare_test_rows.tmpl.sql", queries.CompareTestRows{Table: compareTable, Models: len(scorers)})
	if err != nil {
		return nil, 0, err
	}
	label := scorers[0].Model.Label
	terms := "nb_cv_terms(" + queries.Literal(name) + ", __sqlnb_model, CAST(" + queries.Ident(label) + " AS VARCHAR), NULL, " + queries.Row + ")"
	ms, err := cvMetrics(ctx, conn, nb.Source{From: from}, label, "__sqlnb_model", terms)
	if err != nil {
		return nil, 0, fmt.Errorf("compare: score the test rows: %w", err)
	}
	out := make([]map[string]float64, len(scorers))
	for i := range out {
		out[i] = map[string]float64{}
	}
	var n int64
	for _, m := range ms {
		if !m.PerClass && m.Group >= 0 && int(m.Group) < len(out) && !math.IsNaN(m.Value) {
			out[m.Group][m.Metric] = m.Value
			if m.Metric == "n" {
				n = max(n, int64(m.Value))
			}
		}
	}
	return out, n, nil
}

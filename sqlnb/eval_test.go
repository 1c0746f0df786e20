package sqlnb_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// TestMetricsMatchScikitLearn runs the evaluation SQL on scored rows from testdata/fixtures/gen_metrics.py
// (synthetic scores with many ties, and scikit-learn GaussianNB's own posteriors on iris and breast cancer)
// and compares every metric with sklearn.metrics 1.2.1 (metrics_expected.json) to 1e-12.
func TestMetricsMatchScikitLearn(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "metrics_expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]map[string]float64
	if err := json.Unmarshal(raw, &expected); err != nil {
		t.Fatal(err)
	}
	db := mustOpenDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("..", "testdata", "fixtures", "metrics_scored_"+name+".csv")
			var classes []string
			for k := range want {
				if c, ok := strings.CutPrefix(k, "roc_auc/"); ok {
					classes = append(classes, c)
				}
			}
			slices.Sort(classes)
			keys, vals := make([]string, len(classes)), make([]string, len(classes))
			for i, c := range classes {
				keys[i], vals[i] = queries.Literal(c), queries.Ident("p_"+c)
			}
			proba := fmt.Sprintf("MAP([%s], [%s])", strings.Join(keys, ", "), strings.Join(vals, ", "))
			e, err := sqlnb.EvaluateScores(ctx, conn, file, "y", proba, "", false)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, m := range e.Metrics {
				k := m.Metric
				if m.Class != "" {
					k += "/" + m.Class
				}
				got[k] = m.Value
			}
			for _, c := range e.Confusion {
				got["confusion/"+c.Actual+"/"+c.Predicted] = float64(c.N)
			}
			for k, w := range want {
				g, ok := got[k]
				if !ok {
					t.Errorf("%s: missing", k)
					continue
				}
				if math.Abs(g-w) > 1e-12 {
					t.Errorf("%s = %.17g, sklearn %.17g", k, g, w)
				}
			}
		})
	}
}

// TestCalibrationMatchesScikitLearn: the reliability-diagram bins of every class (one-vs-rest quantile
// bins) equal scikit-learn 1.2.1's calibration_curve(strategy="quantile", n_bins=10) on the scored rows of
// TestMetricsMatchScikitLearn (testdata/fixtures/gen_calibration.py), to 1e-12, with the same row counts.
func TestCalibrationMatchesScikitLearn(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "calibration_expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]map[string]struct {
		ProbTrue []float64 `json:"prob_true"`
		ProbPred []float64 `json:"prob_pred"`
		N        []int64   `json:"n"`
	}
	if err := json.Unmarshal(raw, &expected); err != nil {
		t.Fatal(err)
	}
	db := mustOpenDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			var classes []string
			for c := range want {
				classes = append(classes, c)
			}
			slices.Sort(classes)
			keys, vals := make([]string, len(classes)), make([]string, len(classes))
			for i, c := range classes {
				keys[i], vals[i] = queries.Literal(c), queries.Ident("p_"+c)
			}
			proba := fmt.Sprintf("MAP([%s], [%s])", strings.Join(keys, ", "), strings.Join(vals, ", "))
			file := filepath.Join("..", "testdata", "fixtures", "metrics_scored_"+name+".csv")
			e, err := sqlnb.EvaluateScores(ctx, conn, file, "y", proba, "", true)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]sqlnb.CalibrationBin{}
			for _, b := range e.Calibration {
				got[b.Class] = append(got[b.Class], b)
			}
			for _, c := range classes {
				w, g := want[c], got[c]
				if len(g) != len(w.N) {
					t.Errorf("class %s: %d bins, sklearn %d", c, len(g), len(w.N))
					continue
				}
				for i, b := range g {
					if b.N != w.N[i] || math.Abs(b.Predicted-w.ProbPred[i]) > 1e-12 || math.Abs(b.Observed-w.ProbTrue[i]) > 1e-12 {
						t.Errorf("class %s bin %d: n %d, predicted %.17g, observed %.17g; sklearn %d, %.17g, %.17g",
							c, i, b.N, b.Predicted, b.Observed, w.N[i], w.ProbPred[i], w.ProbTrue[i])
					}
				}
			}
		})
	}
}

// refRanking is a plain-Go reference of scikit-learn 1.2's roc_auc_score (the probability that a positive
// outscores a negative, ties counting 1/2, by counting every pair) and average_precision_score (Σ over the
// distinct thresholds, descending, of ΔRecall × Precision) of scores s against positives pos.
func refRanking(s []float64, pos []bool) (auc, ap float64) {
	var np, nn, u float64
	for i := range s {
		if !pos[i] {
			nn++
			continue
		}
		np++
		for j := range s {
			switch {
			case pos[j]:
			case s[j] < s[i]:
				u++
			case s[j] == s[i]:
				u += 0.5
			}
		}
	}
	thresholds := slices.Clone(s)
	slices.Sort(thresholds)
	thresholds = slices.Compact(thresholds)
	prevRecall := 0.0
	for t := len(thresholds) - 1; t >= 0; t-- {
		var tp, all float64
		for i := range s {
			if s[i] >= thresholds[t] {
				all++
				if pos[i] {
					tp++
				}
			}
		}
		ap += (tp/np - prevRecall) * tp / all
		prevRecall = tp / np
	}
	return u / (np * nn), ap
}

// TestRankingMatchesReference: ROC-AUC and average precision per class, from one DuckDB sort per class with
// average ranks, equal a pair-counting reference to 1e-12 on scores with many ties (posteriors rounded to
// two decimals), four classes, a true label outside the classes and rows whose MAP lacks a class.
func TestRankingMatchesReference(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	classes := []string{"a", "b", "c", "d"}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE s AS SELECT CASE WHEN i % 97 = 0 THEN 'z' ELSE ['a', 'b', 'c', 'd'][1 + (hash(i, 1) % 4)::INTEGER] END AS y,
		round((hash(i, 2) % 100) / 100, 2) AS pa, round((hash(i, 3) % 100) / 100, 2) AS pb, round((hash(i, 4) % 100) / 100, 2) AS pc,
		CASE WHEN i % 53 = 0 THEN NULL ELSE round((hash(i, 5) % 100) / 100, 2) END AS pd FROM range(1500) r(i)`); err != nil {
		t.Fatal(err)
	}
	proba := "CASE WHEN pd IS NULL THEN MAP(['a', 'b', 'c'], [pa, pb, pc]) ELSE MAP(['a', 'b', 'c', 'd'], [pa, pb, pc, pd]) END"
	e, err := sqlnb.EvaluateScores(ctx, conn, "SELECT * FROM s ORDER BY pd NULLS LAST", "y", proba, "", false)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, "SELECT y, pa, pb, pc, pd FROM s")
	if err != nil {
		t.Fatal(err)
	}
	scores := make([][]float64, len(classes))
	positives := make([][]bool, len(classes))
	for rows.Next() {
		var y string
		var p [4]sql.NullFloat64
		if err := rows.Scan(&y, &p[0], &p[1], &p[2], &p[3]); err != nil {
			t.Fatal(err)
		}
		for c := range classes {
			if p[c].Valid {
				scores[c] = append(scores[c], p[c].Float64)
				positives[c] = append(positives[c], y == classes[c])
			}
		}
	}
	rows.Close()
	var sumAUC float64
	for c, class := range classes {
		wantAUC, wantAP := refRanking(scores[c], positives[c])
		sumAUC += wantAUC
		gotAUC, _ := e.Get("roc_auc", class)
		gotAP, _ := e.Get("average_precision", class)
		if !near(gotAUC, wantAUC, 1e-12) || !near(gotAP, wantAP, 1e-12) {
			t.Errorf("class %s: roc_auc %.17g, average_precision %.17g; reference %.17g, %.17g", class, gotAUC, gotAP, wantAUC, wantAP)
		}
	}
	if got, _ := e.Get("roc_auc_macro", ""); !near(got, sumAUC/4, 1e-12) {
		t.Errorf("roc_auc_macro %.17g, reference %.17g", got, sumAUC/4)
	}
}

// TestEvaluateNoCurves: without the sorting metrics, Evaluate scores and aggregates in one statement and
// gets every other metric and the confusion matrix as the full evaluation does; with them, taking the
// posteriors by position (nb_predict_proba's keys) and looking them up by label agree.
func TestEvaluateNoCurves(t *testing.T) {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "votes", Source: votesTrain, Label: "party"}); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	full, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "votes", Source: votesTest})
	if err != nil {
		t.Fatal(err)
	}
	quick, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "votes", Source: votesTest, NoCurves: true})
	if err != nil {
		t.Fatal(err)
	}
	byLabel, err := sqlnb.EvaluateScores(ctx, conn, votesTest, "party", "nb_predict_proba('votes', __sqlnb_row)", "", false)
	if err != nil {
		t.Fatal(err)
	}
	sorting := map[string]bool{"roc_auc": true, "average_precision": true}
	n := 0
	for _, m := range full.Metrics {
		if v, ok := byLabel.Get(m.Metric, m.Class); !ok || !near(v, m.Value, 1e-12) {
			t.Errorf("%s %q: %v by position, %v by label", m.Metric, m.Class, m.Value, v)
		}
		v, ok := quick.Get(m.Metric, m.Class)
		if sorting[m.Metric] {
			if ok {
				t.Errorf("NoCurves computed %s %q", m.Metric, m.Class)
			}
			continue
		}
		n++
		if !ok || !near(v, m.Value, 1e-12) {
			t.Errorf("%s %q: %v without curves, %v with", m.Metric, m.Class, v, m.Value)
		}
	}
	if n != len(quick.Metrics) || n < 10 {
		t.Errorf("%d metrics without curves, %d shared with the full evaluation", len(quick.Metrics), n)
	}
	if !slices.Equal(quick.Confusion, full.Confusion) || len(full.Confusion) != 3 {
		t.Errorf("confusion %v without curves, %v with", quick.Confusion, full.Confusion)
	}
}

// TestEvalLabelType: a true-label column of a type whose values do not read as the model's classes (INTEGER
// for a BOOLEAN label, DOUBLE for an INTEGER one) is an error saying to cast it; before, every row counted as
// an error (accuracy 0) and the per-class table listed classes "0.0", "1.0". Types that read alike pass.
func TestEvalLabelType(t *testing.T) {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t AS SELECT sin(i * 1.3) * 2 + (i % 2) * 0.7 AS x, (i % 2 = 0) AS yb,
		(i % 3)::INTEGER AS yi, ((i % 3) / 2)::DECIMAL(4, 1) AS yd FROM range(60) r(i)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"yb", "yi", "yd"} {
		if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: m, Source: "SELECT x, " + m + " FROM t", Label: m}); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range []struct {
		model, cast string
		ok          bool
	}{
		{"yb", "INTEGER", false}, {"yi", "DOUBLE", false}, {"yd", "DECIMAL(5, 2)", false}, {"yi", "VARCHAR", true},
		{"yi", "BIGINT", true}, {"yi", "HUGEINT", true}, {"yd", "DECIMAL(9, 1)", true}, {"yb", "BOOLEAN", true}, {"yi", "DECIMAL(18, 0)", true}, {"yi", "UTINYINT", true},
	} {
		src := fmt.Sprintf("SELECT x, CAST(%s AS %s) AS %s FROM t", c.model, c.cast, c.model)
		e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: c.model, Source: src, NoCurves: true})
		switch {
		case c.ok && err != nil:
			t.Errorf("model %s, label cast to %s: %v", c.model, c.cast, err)
		case c.ok:
			if acc, _ := e.Get("accuracy", ""); acc == 0 {
				t.Errorf("model %s, label cast to %s: accuracy 0", c.model, c.cast)
			}
		case !errors.Is(err, sqlnb.ErrBadType) || !strings.Contains(err.Error(), "cast it in a --from query"):
			t.Errorf("model %s, label cast to %s: %v, want ErrBadType saying to cast it", c.model, c.cast, err)
		}
		if c.ok && e != nil && len(e.Warnings) != 0 {
			t.Errorf("model %s, label cast to %s: warnings %q", c.model, c.cast, e.Warnings)
		}
	}
	// Text on one side passes the type check; labels that are none of the classes ("0.0" for a VARCHAR-trained
	// "0") are then a warning naming them.
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "yv", Source: "SELECT x, yi::VARCHAR AS yv FROM t", Label: "yv"}); err != nil {
		t.Fatal(err)
	}
	e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "yv", Source: "SELECT x, yi::DOUBLE AS yv FROM t", NoCurves: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Warnings) != 1 || !strings.Contains(e.Warnings[0], `60 rows have a true label that is none of model "yv"'s classes ("0.0", "1.0", "2.0")`) {
		t.Errorf("VARCHAR-trained model, DOUBLE labels: warnings %q", e.Warnings)
	}
}

// TestEvaluateCountsLeftOut: an lda model gives NULL scores for rows with a missing value; the evaluation
// leaves them out of its metrics (n) and says how many, where before the metrics silently covered fewer rows.
// A naive Bayes model scores every row: no warning, and no extra scan.
func TestEvaluateCountsLeftOut(t *testing.T) {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db.DB, `CREATE TABLE d AS SELECT ['a', 'b'][1 + i % 2] AS y, i % 2 + sin(i) AS x1,
		CASE WHEN i % 10 = 3 THEN NULL WHEN i % 10 = 5 THEN 'nan'::DOUBLE ELSE cos(i) END AS x2 FROM range(200) r(i)
		UNION ALL SELECT NULL, 1, NULL`)
	for _, c := range []struct {
		kind sqlnb.Kind
		n    float64
		warn string
	}{
		// 200 labelled rows, 20 with x2 NULL (i % 10 = 3) and 20 NaN (i % 10 = 5); the NULL-label row is not evaluated.
		{sqlnb.LDA, 160, "40 of the 200 labelled rows have NULL scores (a NULL, NaN or ±Inf value of a lda feature)"},
		{sqlnb.Gaussian, 200, ""},
	} {
		name := string(c.kind)
		if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: name, Source: "d", Label: "y", Kind: c.kind}); err != nil {
			t.Fatal(err)
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, quick := range []bool{false, true} {
			e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: name, Source: "d", NoCurves: quick})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := e.Get("n", "")
			got := strings.Join(e.Warnings, "\n")
			if n != c.n || (c.warn == "") != (got == "") || !strings.Contains(got, c.warn) {
				t.Errorf("%s (no curves %v): n %v, warnings %q; want %v and %q", name, quick, n, got, c.n, c.warn)
			}
		}
		conn.Close()
	}
}

// TestEvaluateNoRows: a source without labelled rows, or whose labelled rows all score NULL, is an error that
// says so (it printed empty metric tables and "evaluated on 0 rows" with success).
func TestEvaluateNoRows(t *testing.T) {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db.DB, `CREATE TABLE d AS SELECT ['a', 'b'][1 + i % 2] AS y, i % 2 + sin(i) AS x,
		CASE WHEN i % 2 = 0 THEN cos(i) END AS z FROM range(100) r(i)`)
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "g", Source: "d", Label: "y"}); err != nil {
		t.Fatal(err)
	}
	// lda on complete rows; scored on d, whose class-b rows all miss z.
	mustExec(t, db.DB, `CREATE TABLE e AS SELECT y, x, coalesce(z, sin(x)) AS z FROM d`)
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "l", Source: "e", Label: "y", Kind: sqlnb.LDA}); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range []struct{ model, source, want string }{
		{"g", "FROM d WHERE false", `source "FROM d WHERE false" has no rows with a non-NULL label "y": nothing to evaluate`},
		{"g", "SELECT NULL::VARCHAR AS y, x, z FROM d", `has no rows with a non-NULL label "y"`},
		{"l", "FROM d WHERE y = 'b'", "no row could be scored: 50 of the 50 labelled rows have NULL scores"},
	} {
		for _, quick := range []bool{false, true} {
			_, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: c.model, Source: c.source, NoCurves: quick})
			if !errors.Is(err, sqlnb.ErrNoRows) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s on %s: %v", c.model, c.source, err)
			}
		}
	}
}

// TestEvaluateSameEveryRun: DuckDB adds the rows of a parallel aggregate in an order that changes from run
// to run, so a plain sum of the per-row log-loss and Brier terms (and of the per-class F1s) came out different
// in its last bits from one eval to the next. The terms' sums are exact_sum's and the class averages in class
// order: four evaluations of the same 1.2M rows (ten row groups, both threads) print the same bits.
func TestEvaluateSameEveryRun(t *testing.T) {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `SET threads = 2; CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y,
		(hash(i) % 1000003) / 333334.0 + (i % 3) AS x, (hash(i + 7) % 999983) / 999983.0 AS z FROM range(1200000) r(i)`); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"}); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var first map[string]uint64
	for run := range 4 {
		e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "m", Source: "d", NoCurves: true})
		if err != nil {
			t.Fatal(err)
		}
		bits := map[string]uint64{}
		for _, m := range e.Metrics {
			bits[m.Metric+" "+m.Class] = math.Float64bits(m.Value)
		}
		if run == 0 {
			first = bits
			continue
		}
		for k, b := range bits {
			if first[k] != b {
				t.Errorf("run %d: %s = %v, run 0: %v", run, k, math.Float64frombits(b), math.Float64frombits(first[k]))
			}
		}
	}
}

// TestEvaluateCountsNullLabels: rows with a NULL label are left out of every metric (scikit-learn's refuse
// them) and counted — in the same scan — so eval can say so (it left them out without a word); the metrics
// equal those of the labelled rows alone, with curves and without.
func TestEvaluateCountsNullLabels(t *testing.T) {
	ctx := context.Background()
	db, err := udf.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE b AS SELECT i AS id, (i % 2 = 0) AS y, (i % 2) * 0.5 + sin(i) AS x FROM range(1000) r(i)`); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "b", Label: "y", Features: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, noCurves := range []bool{false, true} {
		with, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "m", NoCurves: noCurves,
			Source: "SELECT * REPLACE (CASE WHEN id < 100 THEN NULL ELSE y END AS y) FROM b"})
		if err != nil {
			t.Fatal(err)
		}
		without, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "m", NoCurves: noCurves, Source: "SELECT * FROM b WHERE id >= 100"})
		if err != nil {
			t.Fatal(err)
		}
		if with.Unlabelled != 100 || without.Unlabelled != 0 {
			t.Errorf("no curves %v: unlabelled %d and %d, want 100 and 0", noCurves, with.Unlabelled, without.Unlabelled)
		}
		if len(with.Metrics) != len(without.Metrics) || !slices.Equal(with.Confusion, without.Confusion) {
			t.Fatalf("no curves %v: %d metrics and %d; confusion %v and %v", noCurves, len(with.Metrics), len(without.Metrics), with.Confusion, without.Confusion)
		}
		for i, m := range with.Metrics {
			if w := without.Metrics[i]; m.Metric != w.Metric || m.Class != w.Class || !near(m.Value, w.Value, 1e-15) {
				t.Errorf("no curves %v: %s %q = %v with NULL-label rows, %v without", noCurves, m.Metric, m.Class, m.Value, w.Value)
			}
		}
	}
}

package udf_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// TestCrossValidationMatchesDirectEvaluation: each fold's metrics from the one-pass cross-validation
// equal Evaluate of a model trained directly on the other folds, scored on that fold; a sweep of α gives
// one setting per value and picks the best.
func TestCrossValidationMatchesDirectEvaluation(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT (hash(i) % 3)::VARCHAR AS y,
		CASE WHEN i % 11 = 0 THEN NULL ELSE sin(i) * 2 + (hash(i) % 3) END AS x,
		CASE WHEN i % 7 = 0 THEN NULL ELSE ['u', 'v', 'w', 'z'][1 + ((i * 7 + hash(i) % 3) % 4)::INTEGER] END AS c FROM range(3000) r(i)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	spec := sqlnb.CVSpec{Folds: 5, Seed: 3, Alphas: []float64{0, 1, 10}, Metric: "log_loss", AUC: false,
		Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y"}}
	res, err := sqlnb.CrossValidate(ctx, conn, db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Settings) != 3 {
		t.Fatalf("%d settings", len(res.Settings))
	}
	fold := sqlnb.FoldExpr(5, 3, "", "y", false)
	for si, s := range res.Settings {
		for f := range 5 {
			alpha := s.Params.Float("alpha")
			p := sqlnb.DefaultParams()
			p = p.With("alpha", alpha)
			if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "direct", Label: "y", Params: &p,
				Source: fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM d __sqlnb_row) WHERE __f <> %d", fold, f)}); err != nil {
				t.Fatal(err)
			}
			e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "direct",
				Source: fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM d __sqlnb_row) WHERE __f = %d", fold, f)})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []string{"n", "accuracy", "log_loss", "brier", "f1_macro"} {
				want, _ := e.Get(m, "")
				if got := s.Folds[f][m]; math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Errorf("setting %d (α=%g) fold %d %s: cv %.17g, direct %.17g", si, alpha, f, m, got, want)
				}
			}
		}
	}
	best := res.Settings[res.Best].Mean["log_loss"]
	for _, s := range res.Settings {
		if s.Mean["log_loss"] < best {
			t.Errorf("best setting has log_loss %v, another %v", best, s.Mean["log_loss"])
		}
	}
}

// TestPosLabel: the positive class of a two-class model decides the binary metrics: with either class,
// the overall average precision is that class's own (which TestMetricsMatchScikitLearn checks against
// scikit-learn), and each cross-validation fold's Brier score, ROC-AUC and average precision — through
// nb_cv_terms and through nb_cv_proba — equal Evaluate's of a model trained on the other folds with the same
// positive class. A class the model lacks, or a positive class of a three-class model, is ErrPosLabel.
func TestPosLabel(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN hash(i) % 5 = 0 THEN 'rare' ELSE 'common' END AS y,
		sin(i) * 2 + (hash(i) % 5 = 0)::INT AS x, ['u', 'v', 'w'][1 + (i % 3)::INTEGER] AS c FROM range(2000) r(i)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, db, `CALL nb_train('m', 'd', 'y')`)
	for _, pos := range []string{"", "common", "rare"} {
		e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "m", Source: "d", PosLabel: pos})
		if err != nil {
			t.Fatal(err)
		}
		want := pos
		if pos == "" {
			want = "rare" // the second class in label order
		}
		overall, _ := e.Get("average_precision", "")
		own, _ := e.Get("average_precision", want)
		if e.Positive != want || overall != own {
			t.Errorf("pos %q: positive %q, average precision %v, of class %s %v", pos, e.Positive, overall, want, own)
		}
	}
	fold := sqlnb.FoldExpr(4, 1, "", "y", true)
	for _, auc := range []bool{false, true} {
		for _, pos := range []string{"common", "rare"} {
			res, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Folds: 4, Seed: 1, Stratified: true, AUC: auc, PosLabel: pos,
				Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y"}})
			if err != nil {
				t.Fatal(err)
			}
			for f := range 4 {
				if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "direct", Label: "y",
					Source: fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM d __sqlnb_row) WHERE __f <> %d", fold, f)}); err != nil {
					t.Fatal(err)
				}
				e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "direct", PosLabel: pos,
					Source: fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM d __sqlnb_row) WHERE __f = %d", fold, f)})
				if err != nil {
					t.Fatal(err)
				}
				metrics := []string{"brier"}
				if auc {
					metrics = append(metrics, "roc_auc", "average_precision")
				}
				for _, m := range metrics {
					want, _ := e.Get(m, "")
					if got := res.Settings[0].Folds[f][m]; math.Abs(got-want) > 1e-12 {
						t.Errorf("auc %v, positive %s, fold %d %s: cv %.17g, direct %.17g", auc, pos, f, m, got, want)
					}
				}
			}
		}
	}
	if _, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "m", Source: "d", PosLabel: "Rare"}); !errors.Is(err, sqlnb.ErrPosLabel) ||
		!strings.Contains(err.Error(), `model "m" has no class "Rare" to count as positive (classes: "common", "rare")`) {
		t.Errorf("unknown positive class: %v", err)
	}
	mustExec(t, db, `CALL nb_train('three', 'SELECT (i % 3)::VARCHAR AS y, sin(i) AS x FROM range(90) r(i)', 'y')`)
	if _, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "three", Source: "SELECT (i % 3)::VARCHAR AS y, sin(i) AS x FROM range(90) r(i)", PosLabel: "1"}); !errors.Is(err, sqlnb.ErrPosLabel) ||
		!strings.Contains(err.Error(), "has 3 classes") {
		t.Errorf("three classes: %v", err)
	}
	if got := one(t, db, `SELECT value FROM nb_eval('m', 'd', pos_label := 'common') WHERE metric = 'average_precision' AND class IS NULL`); got != one(t, db,
		`SELECT value FROM nb_eval('m', 'd') WHERE metric = 'average_precision' AND class = 'common'`) {
		t.Errorf("nb_eval pos_label: %s", got)
	}
}

// TestCVEmptyFold: more folds than a fold assignment fills is an error naming the empty fold, for the
// summed families and for the refitted ones (logistic); before, the empty folds' metrics were NULL and the
// mean was over the others, without a word.
func TestCVEmptyFold(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0), ('b', 2.0), ('a', 1.5), ('b', 2.5), ('a', 0.9), ('b', 2.2)) v(y, x)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, kind := range []sqlnb.Kind{"", sqlnb.Logistic} {
		_, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Folds: 10, Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y", Kind: kind}})
		if !errors.Is(err, sqlnb.ErrBadOption) || !strings.Contains(err.Error(), "has no labelled rows (6 labelled rows in all): use fewer folds") {
			t.Errorf("kind %q, 10 folds of 6 rows: %v", kind, err)
		}
	}
	if _, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Folds: 2, Stratified: true, Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y"}}); err != nil {
		t.Errorf("2 stratified folds of 6 rows: %v", err)
	}
}

// TestFoldSeeds: the seed changes the partition for every fold count (hash(t, seed) only XORed hash(t) with a
// constant, so modulo 2, 4 or 8 every seed gave the same folds), and folds are balanced (20 rows of a small
// table all landed in one of 2 folds): over 1000 rows no fold is more than 4 standard deviations off k/n.
func TestFoldSeeds(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 2)::VARCHAR AS y, i::DOUBLE AS x FROM range(1000) r(i)`)
	for _, k := range []int{2, 3, 4, 8} {
		partitions := map[string]bool{}
		for seed := range int64(4) {
			fold := sqlnb.FoldExpr(k, seed, "", "y", false)
			sizes := queryStrings(t, db, fmt.Sprintf(`SELECT count(*) FROM (SELECT %s AS f FROM d __sqlnb_row) GROUP BY f ORDER BY f`, fold))
			if len(sizes) != k {
				t.Errorf("k %d, seed %d: %d folds", k, seed, len(sizes))
			}
			for f, s := range sizes {
				n, _ := strconv.Atoi(s[0])
				if mean, sd := 1000.0/float64(k), math.Sqrt(1000.0/float64(k)*(1-1/float64(k))); math.Abs(float64(n)-mean) > 4*sd {
					t.Errorf("k %d, seed %d: fold %d has %d rows of 1000", k, seed, f, n)
				}
			}
			first := queryStrings(t, db, fmt.Sprintf(`SELECT string_agg(x::INTEGER::VARCHAR, ',' ORDER BY x) FROM (SELECT x, %s AS f FROM d __sqlnb_row) WHERE f = 0`, fold))[0][0]
			partitions[first] = true
		}
		if len(partitions) != 4 {
			t.Errorf("k %d: 4 seeds gave %d partitions", k, len(partitions))
		}
	}
	got := queryStrings(t, db, fmt.Sprintf(`SELECT count(DISTINCT %s) FROM (SELECT (i %% 2)::VARCHAR AS y, i::DOUBLE AS x FROM range(20) r(i)) __sqlnb_row`, sqlnb.FoldExpr(2, 0, "", "y", false)))
	if got[0][0] != "2" {
		t.Errorf("20 rows in 2 folds: %s non-empty folds", got[0][0])
	}
}

// TestCVBestByRankingMulticlass: with more than two classes --metric roc_auc (average_precision) picks the
// setting with the best macro average (roc_auc_macro). Before, the sweep looked up "roc_auc", which a
// multiclass run does not have, read 0 for every setting and so always kept the first one.
func TestCVBestByRankingMulticlass(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a','b','c'][i%3+1] AS y,
		CASE WHEN i%5=0 THEN 'v'||((i+1)%3) ELSE 'v'||(i%3) END AS f,
		CASE WHEN i%7=0 THEN 'w'||((i+2)%3) ELSE 'w'||(i%3) END AS g FROM range(300) r(i)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, metric := range []string{"roc_auc", "average_precision"} {
		// α = 1000 flattens the posteriors (a worse ranking than α = 0.01) and comes first.
		res, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Folds: 3, Seed: 1, Alphas: []float64{1000, 0.01}, Metric: metric,
			Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y"}})
		if err != nil {
			t.Fatal(err)
		}
		key := metric + "_macro"
		a, b := res.Settings[0].Mean[key], res.Settings[1].Mean[key]
		if res.Metric != key || !(b > a) || res.Best != 1 {
			t.Errorf("%s: metric %q, best %d; %s %v (α 1000) and %v (α 0.01)", metric, res.Metric, res.Best, key, a, b)
		}
	}
}

// TestCVSourceChecks: cv makes train's checks first, with its words: an empty source (it said "fold 1 has no
// labelled rows ... use fewer folds, --stratified or another --seed", none of which helps) and a single class
// (it said "use fewer folds or --stratified"), for the one-scan folds and the refitted ones (logistic).
func TestCVSourceChecks(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][i % 2 + 1] AS y, i % 2 + sin(i) AS x FROM range(100) r(i)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, kind := range []sqlnb.Kind{"", sqlnb.Logistic} {
		for _, c := range []struct {
			source string
			is     error
			want   string
		}{
			{"FROM d WHERE false", sqlnb.ErrNoRows, `source "FROM d WHERE false" has no rows with a non-NULL label "y"`},
			{"FROM d WHERE y = 'a'", sqlnb.ErrOneClass, `label column "y" has the single class "a": a classifier needs at least two`},
		} {
			_, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Folds: 5, Train: sqlnb.TrainSpec{Model: "cv", Source: c.source, Label: "y", Kind: kind}})
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("kind %q, %s: %v", kind, c.source, err)
			}
		}
	}
}

// TestCrossValidationSmallClass: a class with fewer labelled rows than folds draws a warning naming it (as
// scikit-learn's StratifiedKFold does: the fold that holds its rows has a model that never saw it, and that
// fold's metrics fall without a word); classes with enough rows draw none.
func TestCrossValidationSmallClass(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE s AS SELECT CASE WHEN i IN (5, 17) THEN 'rare' WHEN i % 2 = 0 THEN 'A' ELSE 'C' END AS y, sin(i) + (i % 2) AS x FROM range(1000) r(i)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for folds, warned := range map[int]bool{5: true, 2: false} {
		res, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Folds: folds, Stratified: true, Train: sqlnb.TrainSpec{Model: "cv", Source: "s", Label: "y"}})
		if err != nil {
			t.Fatal(err)
		}
		got := len(res.Warnings) == 1 && strings.Contains(res.Warnings[0], `class "rare" has 2 labelled rows, fewer than the 5 folds`)
		if got != warned || (!warned && len(res.Warnings) > 0) {
			t.Errorf("%d folds: warnings %q", folds, res.Warnings)
		}
	}
}

package udf_test

import (
	"context"
	"fmt"
	"math"
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
			alpha := s.Params.Alpha
			p := sqlnb.DefaultParams()
			p.Alpha = alpha
			if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "direct", Label: "y", Params: &p,
				Source: fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM d t) WHERE __f <> %d", fold, f)}); err != nil {
				t.Fatal(err)
			}
			e, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: "direct",
				Source: fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM d t) WHERE __f = %d", fold, f)})
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

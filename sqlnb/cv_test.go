package sqlnb_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// TestFoldModelsAreExact: the model of fold f, merged from the other folds' statistics of one GROUP BY
// (fold, class) scan, equals a model trained directly on the rows outside fold f, to 1e-12.
func TestFoldModelsAreExact(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT (hash(i) % 3)::VARCHAR AS y,
		CASE WHEN i % 11 = 0 THEN NULL ELSE sin(i) * 5 + 10 + (hash(i) % 3) END AS x,
		CASE WHEN i % 7 = 0 THEN NULL ELSE ['u', 'v', 'w', 'z'][1 + (i * 7) % 4] END AS c,
		i % 3 = 0 AS b, 0.5 + (i % 4) AS w FROM range(2000) r(i)`)
	for _, c := range []struct {
		name       string
		weight     string
		stratified bool
	}{{"plain", "", false}, {"weighted", "w", false}, {"stratified", "", true}} {
		t.Run(c.name, func(t *testing.T) {
			spec := sqlnb.CVSpec{Folds: 4, Seed: 7, Stratified: c.stratified,
				Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y", Weight: c.weight, Features: []string{"x", "c", "b"},
					FeatureKinds: map[string]sqlnb.Kind{"b": sqlnb.Bernoulli}}}
			models, fold, err := sqlnb.FoldModels(ctx, db, spec)
			if err != nil {
				t.Fatal(err)
			}
			total := int64(0)
			for f, m := range models {
				direct := train(t, db, sqlnb.TrainSpec{Model: fmt.Sprint("direct", f), Label: "y", Weight: c.weight,
					Features: spec.Train.Features, FeatureKinds: spec.Train.FeatureKinds,
					Source: fmt.Sprintf("SELECT * EXCLUDE (__f) FROM (SELECT *, %s AS __f FROM d __sqlnb_row) WHERE __f <> %d", fold, f)})
				total += int64(2000) - m.Rows
				compareModels(t, f, m, direct)
			}
			if total != 2000 {
				t.Errorf("held-out rows add up to %d, want 2000", total)
			}
		})
	}
}

func compareModels(t *testing.T, f int, got, want *sqlnb.Model) {
	t.Helper()
	if len(got.Classes) != len(want.Classes) {
		t.Fatalf("fold %d: classes %v vs %v", f, got.Classes, want.Classes)
	}
	for i := range got.Classes {
		g, w := got.Classes[i], want.Classes[i]
		if g.Label != w.Label || g.Count != w.Count || !near(g.Weight, w.Weight, 1e-12) {
			t.Errorf("fold %d: class %+v vs %+v", f, g, w)
		}
	}
	wg := map[string]gaussian.GaussianStat{}
	for _, g := range nb.StatRows(want, gaussian.GaussianTable) {
		wg[g.Feature+"/"+g.Class] = g
	}
	if n := len(nb.StatRows(got, gaussian.GaussianTable)); n == 0 || n != len(wg) {
		t.Errorf("fold %d: %d Gaussian rows vs %d", f, n, len(wg))
	}
	for _, g := range nb.StatRows(got, gaussian.GaussianTable) {
		w := wg[g.Feature+"/"+g.Class]
		if g.Count != w.Count || !near(g.Mean, w.Mean, 1e-12) || !near(g.M2, w.M2, 1e-12) ||
			!near(g.Weight, w.Weight, 1e-12) || !near(g.WMean, w.WMean, 1e-12) || !near(g.WM2, w.WM2, 1e-12) {
			t.Errorf("fold %d: Gaussian %+v vs %+v", f, g, w)
		}
	}
	wc := map[string]categorical.CategoryCount{}
	for _, c := range nb.StatRows(want, categorical.CategoricalTable) {
		wc[c.Feature+"/"+c.Class+"/"+c.Value] = c
	}
	if len(nb.StatRows(got, categorical.CategoricalTable)) != len(nb.StatRows(want, categorical.CategoricalTable)) {
		t.Errorf("fold %d: %d counts vs %d", f, len(nb.StatRows(got, categorical.CategoricalTable)), len(nb.StatRows(want, categorical.CategoricalTable)))
	}
	for _, c := range nb.StatRows(got, categorical.CategoricalTable) {
		w := wc[c.Feature+"/"+c.Class+"/"+c.Value]
		if c.Count != w.Count || math.Abs(c.Weight-w.Weight) > 1e-12*math.Max(1, w.Weight) {
			t.Errorf("fold %d: count %+v vs %+v", f, c, w)
		}
	}
}

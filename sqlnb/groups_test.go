package sqlnb_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

// TestGroupModelsAreExact: with 500 groups, every group's model equals the model trained on its rows alone
// (statistics and scores to 1e-12), the pooled model equals the model of all rows, and scoring picks the
// row's group model — unseen groups and NULL group values get the pooled model. Both scoring paths: rows
// gathered by group (a categorical feature), and row by row (Gaussian features only).
func TestGroupModelsAreExact(t *testing.T) {
	for _, feats := range [][]string{{"x", "z", "c"}, {"x", "z"}} {
		t.Run(fmt.Sprint(feats), func(t *testing.T) { testGroupModels(t, feats) })
	}
}

func testGroupModels(t *testing.T, feats []string) {
	db := mustOpenDB(t)
	ctx := context.Background()
	// 500 groups (g1 text × g2 integer) of ~40 rows, three classes, Gaussian features x and z (with NULLs), a
	// categorical c (with NULLs), and 300 rows whose g1 is NULL: they count in the pooled model only.
	mustExec(t, db, `CREATE TABLE d AS SELECT
		CASE WHEN i >= 20000 THEN NULL ELSE 'r' || (i % 25) END AS g1, ((i // 25) % 20)::INTEGER AS g2,
		['a', 'b', 'c'][1 + (hash(i, 1) % 3)::BIGINT] AS y,
		(hash(i, 2) % 1000) / 100.0 + (i % 25) + (hash(i, 1) % 3) * 2 AS x,
		CASE WHEN i % 13 = 0 THEN NULL ELSE (hash(i, 3) % 997) / 50.0 - ((i // 25) % 20) END AS z,
		CASE WHEN i % 7 = 0 THEN NULL ELSE ['u', 'v', 'w', 'q'][1 + ((hash(i, 4) + hash(i, 1) % 3) % 4)::BIGINT] END AS c
		FROM range(20300) r(i)`)
	spec := sqlnb.TrainSpec{Model: "grp", Source: "d", Label: "y", By: []string{"g1", "g2"}, Features: feats}
	res, err := sqlnb.Train(ctx, db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(feats) == 3 {
		res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "implicit", Source: "d", Label: "y", By: []string{"g1", "g2"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Model.Features; len(got) != 3 {
			t.Fatalf("features %v: the group columns must not be features", got)
		}
	}
	if len(res.Model.Groups) != 500 {
		t.Fatalf("%d groups", len(res.Model.Groups))
	}
	m, err := sqlnb.Load(ctx, db, "grp")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Groups) != 500 || len(m.By) != 2 {
		t.Fatalf("%d groups by %v, want 500 by g1, g2", len(m.Groups), m.By)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	// The pooled model is the model of every row (the NULL-group rows included).
	all, err := sqlnb.Fit(ctx, db, sqlnb.TrainSpec{Model: "all", Source: "d", Label: "y", Features: feats})
	if err != nil {
		t.Fatal(err)
	}
	compareModels(t, -1, m.Pooled(), all)
	allScorer, err := sqlnb.Compile(all)
	if err != nil {
		t.Fatal(err)
	}
	for k, g := range m.Groups {
		if len(feats) == 2 && k%10 != 0 {
			continue
		}
		direct, err := sqlnb.Fit(ctx, db, sqlnb.TrainSpec{Model: "one", Label: "y", Features: feats,
			Source: fmt.Sprintf("SELECT * FROM d WHERE g1 = '%s' AND g2 = %s", g.Key[0], g.Key[1])})
		if err != nil {
			t.Fatal(err)
		}
		compareModels(t, k, m.Member(k), direct)
		if k%50 != 0 {
			continue
		}
		// Scoring picks the group's model: same joint log-likelihoods as the model trained on its rows alone.
		ds, err := sqlnb.Compile(direct)
		if err != nil {
			t.Fatal(err)
		}
		rows := []map[string]any{{"g1": g.Key[0], "g2": g.Key[1], "x": 3.5, "z": -2.0, "c": "v"},
			{"g1": g.Key[0], "g2": g.Key[1], "x": 11.0, "z": nil, "c": "unseen"},
			{"g1": g.Key[0], "g2": g.Key[1], "x": 1e200, "z": 1.0, "c": nil}}
		checkScores(t, s, ds, rows)
	}
	// Unseen groups, and NULL group values, score with the pooled model.
	rows := []map[string]any{{"g1": "r999", "g2": 1, "x": 3.5, "z": -2.0, "c": "v"},
		{"g1": nil, "g2": 1, "x": 7.0, "z": 1.0, "c": "w"}, {"g1": "r1", "g2": nil, "x": 7.0, "z": 1.0, "c": nil},
		{"g1": "r1", "g2": 99, "x": 2.0, "z": 1.0, "c": "u"}}
	checkScores(t, s, allScorer, rows)
}

// checkScores compares the joint log-likelihoods and posteriors of rows under s (a per-group model) and want,
// and the row reference (RowScores, which is not shifted: -Inf beyond float64's range) where it is finite.
func checkScores(t *testing.T, s, want *sqlnb.Scorer, rows []map[string]any) {
	t.Helper()
	b, err := s.BatchOf(rows)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := want.BatchOf(rows)
	if err != nil {
		t.Fatal(err)
	}
	n, K, WK := len(rows), len(s.Labels), len(want.Labels)
	got, exp := make([]float64, n*K), make([]float64, n*WK)
	s.JointLogLikelihood(b, got, nil)
	want.JointLogLikelihood(wb, exp, nil)
	gp, wp := make([]float64, K), make([]float64, WK)
	for i := range rows {
		kernel.Posterior(got, n, K, i, gp)
		kernel.Posterior(exp, n, WK, i, wp)
		row := make([]float64, K)
		s.RowScores(b, i, row)
		for wc, l := range want.Labels {
			c := -1
			for gc, gl := range s.Labels {
				if gl == l {
					c = gc
				}
			}
			if !near(got[c*n+i], exp[wc*n+i], 1e-12) || !near(gp[c], wp[wc], 1e-12) || (!math.IsInf(row[c], 0) && !near(row[c], exp[wc*n+i], 1e-12)) {
				t.Errorf("row %v, class %s: jll %v (row reference %v), posterior %v; want %v, %v", rows[i], l, got[c*n+i], row[c], gp[c], exp[wc*n+i], wp[wc])
			}
		}
		if WK < K {
			for c := range K {
				if s.Labels[c] != "" && gp[c] == 0 && !math.IsInf(got[c*n+i], -1) {
					t.Errorf("row %v: class %s absent from the group scores %v, want -Inf", rows[i], s.Labels[c], got[c*n+i])
				}
			}
		}
	}
}

func TestGroupErrors(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT i % 2 AS y, i % 3 AS g, i * 0.5 AS x, i::DOUBLE AS f, 1.0 AS w FROM range(40) r(i)`)
	for _, c := range []struct {
		name string
		spec sqlnb.TrainSpec
		want error
	}{
		{"missing column", sqlnb.TrainSpec{By: []string{"nope"}}, sqlnb.ErrUnknownColumn},
		{"label", sqlnb.TrainSpec{By: []string{"y"}}, sqlnb.ErrBadOption},
		{"weight", sqlnb.TrainSpec{By: []string{"w"}, Weight: "w"}, sqlnb.ErrBadOption},
		{"feature", sqlnb.TrainSpec{By: []string{"g"}, Features: []string{"x", "g"}}, sqlnb.ErrBadOption},
		{"double type", sqlnb.TrainSpec{By: []string{"f"}}, sqlnb.ErrBadType},
		{"logistic", sqlnb.TrainSpec{By: []string{"g"}, Features: []string{"x"}, Kind: sqlnb.Kind("logistic")}, sqlnb.ErrBadOption},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := c.spec
			spec.Model, spec.Source, spec.Label = "m", "d", "y"
			_, err := sqlnb.Train(ctx, db, spec)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			t.Log(err)
		})
	}
}

// TestGroupExportImport: a per-group model's JSON carries its group columns and every group's statistics;
// imported, it scores as the original.
func TestGroupExportImport(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT i % 3 AS g, ['a', 'b'][1 + (i // 3) % 2] AS y, (i % 17) * 0.5 + (i // 3) % 2 * (i % 3) AS x,
		['u', 'v'][1 + i % 2] AS c FROM range(300) r(i)`)
	res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", By: []string{"g"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := store.Export(&buf, res.Model); err != nil {
		t.Fatal(err)
	}
	got, err := sqlnb.Import(strings.NewReader(buf.String()), "copy")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 3 || len(got.By) != 1 {
		t.Fatalf("imported %d groups by %v", len(got.Groups), got.By)
	}
	s, err := sqlnb.Compile(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := sqlnb.Compile(got)
	if err != nil {
		t.Fatal(err)
	}
	checkScores(t, gs, s, []map[string]any{{"g": 1, "x": 2.0, "c": "u"}, {"g": 2, "x": 7.5, "c": "v"}, {"g": nil, "x": 7.5, "c": "v"}})
}

// TestGroupRowKernel: the per-group row kernel (Gaussian features only) with seven features (one block of
// four, then three one by one), 60 groups mixed in one batch, groups that lack a class, NULLs, 1e200 and
// unseen groups: every row scores as its group's model alone (compiled from Model.Member; the pooled model
// for an unseen group) to 1e-12, and a class the group lacks gets -Inf.
func TestGroupRowKernel(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	// Groups g < 10 hold classes a and b only.
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 60)::INTEGER AS g,
		CASE WHEN i % 60 < 10 THEN ['a', 'b'][1 + (hash(i, 1) % 2)::BIGINT] ELSE ['a', 'b', 'c'][1 + (hash(i, 1) % 3)::BIGINT] END AS y,
		(hash(i, 2) % 1000) / 100.0 + (i % 60) AS x1, (hash(i, 3) % 997) / 50.0 AS x2, (hash(i, 4) % 991) / 10.0 - (i % 7) AS x3,
		(hash(i, 5) % 983) / 30.0 AS x4, CASE WHEN i % 11 = 0 THEN NULL ELSE (hash(i, 6) % 977) / 20.0 END AS x5,
		(hash(i, 7) % 971) / 40.0 + (i % 60) * 0.5 AS x6, (hash(i, 8) % 967) / 60.0 AS x7
		FROM range(6000) r(i)`)
	feats := []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7"}
	if _, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "rk", Source: "d", Label: "y", By: []string{"g"}, Features: feats}); err != nil {
		t.Fatal(err)
	}
	m, err := sqlnb.Load(ctx, db, "rk")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for i := range 500 {
		r := map[string]any{"g": int64((i * 7) % 65)} // 60..64: unseen groups
		for j, f := range feats {
			r[f] = float64((i*13+j*7)%97)/3 - 5
		}
		switch i % 17 {
		case 3:
			r["x5"] = nil
		case 5:
			r["x2"] = 1e200
		case 7:
			r["x1"], r["x7"] = nil, nil
		}
		rows = append(rows, r)
	}
	b, err := s.BatchOf(rows)
	if err != nil {
		t.Fatal(err)
	}
	n, K := len(rows), len(s.Labels)
	got := make([]float64, n*K)
	s.JointLogLikelihood(b, got, nil)
	for i, r := range rows {
		k := s.GroupOf(b, i)
		one := m.Pooled()
		if k >= 0 {
			one = m.Member(k)
		} else if g := r["g"].(int64); g < 60 {
			t.Fatalf("row %d: group %d has no model", i, g)
		}
		os, err := sqlnb.Compile(one)
		if err != nil {
			t.Fatal(err)
		}
		ob, err := os.BatchOf([]map[string]any{r})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, len(os.Labels))
		os.JointLogLikelihood(ob, want, nil)
		gp, wp := make([]float64, K), make([]float64, len(os.Labels))
		kernel.Posterior(got, n, K, i, gp)
		kernel.Posterior(want, 1, len(os.Labels), 0, wp)
		for c, l := range s.Labels {
			wc := slices.Index(os.Labels, l)
			if wc < 0 {
				if !math.IsInf(got[c*n+i], -1) || gp[c] != 0 {
					t.Errorf("row %d (group %v): class %s, which the group lacks: jll %v, posterior %v; want -Inf, 0", i, r["g"], l, got[c*n+i], gp[c])
				}
				continue
			}
			if !near(got[c*n+i], want[wc], 1e-12) || !near(gp[c], wp[wc], 1e-12) {
				t.Errorf("row %d (group %v), class %s: jll %v, posterior %v; want %v, %v", i, r["g"], l, got[c*n+i], gp[c], want[wc], wp[wc])
			}
		}
	}
}

// TestGroupRowKernelBits: the per-group row kernel gives every row the very bits that its group's model's
// vector kernel gives it (the pooled model's for an unseen group): 1 to 10 features (blocks of four, then
// the rest one by one), 2 to 5 classes, groups that lack classes (-Inf there), values whose square
// overflows (rescored, shifted) and NaN; with each row kernel of the platform (Go, AVX2).
func TestGroupRowKernelBits(t *testing.T) {
	for _, kernel := range sqlnb.RowKernels() {
		for _, F := range []int{1, 3, 4, 5, 8, 10} {
			for _, K := range []int{2, 3, 4, 5, 9} {
				t.Run(fmt.Sprintf("%s, %d features, %d classes", kernel, F, K), func(t *testing.T) {
					defer sqlnb.UseRowKernel(kernel)()
					testRowKernelBits(t, F, K)
				})
			}
		}
	}
}

func testRowKernelBits(t *testing.T, F, K int) {
	rng := rand.New(rand.NewPCG(uint64(F), uint64(K)))
	const groups, n = 40, 1500
	// stats returns random Gaussian statistics of the classes given.
	stats := func(classes []int) (nb.Stats, []sqlnb.Class, int64) {
		var st []gaussian.GaussianStat
		var cl []sqlnb.Class
		rows := int64(0)
		for _, c := range classes {
			cnt := int64(5 + rng.IntN(50))
			rows += cnt
			cl = append(cl, sqlnb.Class{Label: fmt.Sprint("c", c), Count: cnt, Weight: float64(cnt)})
			for j := range F {
				mean, m2 := rng.NormFloat64()*3, (0.1+rng.Float64()*5)*float64(cnt)
				st = append(st, gaussian.GaussianStat{Feature: fmt.Sprint("x", j), Class: fmt.Sprint("c", c), Count: cnt,
					Mean: mean, M2: m2, Weight: float64(cnt), WMean: mean, WM2: m2})
			}
		}
		return nb.Stats{"gaussian": st}, cl, rows
	}
	all := make([]int, K)
	for c := range all {
		all[c] = c
	}
	m := &sqlnb.Model{Name: "bits", Label: "y", Params: sqlnb.DefaultParams(), Version: nb.FormatVersion,
		By: []nb.GroupColumn{{Name: "g", Type: "INTEGER"}}}
	m.Stats, m.Classes, m.Rows = stats(all)
	for j := range F {
		m.Features = append(m.Features, sqlnb.Feature{Name: fmt.Sprint("x", j), Kind: sqlnb.Gaussian, Type: "DOUBLE"})
	}
	for g := range groups {
		classes := all
		switch {
		case K > 2 && g%4 == 1:
			classes = all[1:]
		case K > 2 && g%4 == 2:
			classes = []int{0, K - 1}
		}
		st, cl, rows := stats(classes)
		m.Groups = append(m.Groups, nb.Group{Key: []string{fmt.Sprint(g)}, Rows: rows, Classes: cl, Stats: st})
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch(n)
	gin := s.GroupInputs[0]
	for i := range n {
		b.Cat[gin.Feature][i] = gin.Lookup(fmt.Sprint(rng.IntN(groups + 3))) // groups..groups+2: unseen
		for j := range F {
			x := rng.NormFloat64() * 4
			switch {
			case i%97 == 5:
				x = 1e200
			case i%89 == 7:
				x = math.NaN()
			}
			b.Num[j][i] = x
		}
	}
	got := make([]float64, n*K)
	var ws sqlnb.Workspace
	s.JointLogLikelihood(b, got, &ws)
	shift := func(ws *sqlnb.Workspace, i int) float64 {
		if ws.Shift == nil {
			return 0
		}
		return ws.Shift[i]
	}
	for k := -1; k < groups; k++ {
		one := m.Pooled()
		if k >= 0 {
			one = m.Member(k)
		}
		os, err := sqlnb.Compile(one)
		if err != nil {
			t.Fatal(err)
		}
		ob := os.NewBatch(n)
		for j := range F {
			copy(ob.Num[j], b.Num[j])
		}
		want := make([]float64, n*len(os.Labels))
		var ows sqlnb.Workspace
		os.JointLogLikelihood(ob, want, &ows)
		for i := range n {
			if s.GroupOf(b, i) != k {
				continue
			}
			if math.Float64bits(shift(&ws, i)) != math.Float64bits(shift(&ows, i)) {
				t.Errorf("row %d (group %d): shift %v, want %v", i, k, shift(&ws, i), shift(&ows, i))
			}
			for c, l := range s.Labels {
				g := got[c*n+i]
				wc := slices.Index(os.Labels, l)
				if wc < 0 {
					if !math.IsInf(g, -1) {
						t.Errorf("row %d (group %d): class %s, which the group lacks: %v, want -Inf", i, k, l, g)
					}
					continue
				}
				if w := want[wc*n+i]; math.Float64bits(g) != math.Float64bits(w) {
					t.Errorf("row %d (group %d), class %s: %v (%#x), want %v (%#x)", i, k, l, g, math.Float64bits(g), w, math.Float64bits(w))
				}
			}
		}
	}
}

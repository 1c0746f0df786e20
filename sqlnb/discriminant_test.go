package sqlnb_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/discriminant"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// comoments indexes a model's co-moment rows by class, feature and other feature.
func comoments(m *sqlnb.Model) map[[3]string]discriminant.CoMoment {
	out := map[[3]string]discriminant.CoMoment{}
	for _, r := range nb.StatRows(m, discriminant.CoMomentTable) {
		out[[3]string{r.Class, r.Feature, r.Other}] = r
	}
	return out
}

// TestCoMomentsWithLargeOffset: features shifted by 1e9 give the same co-moments (covariances) as the
// unshifted ones to 1e-6 relative (to sqrt(C_jj C_kk); the shifted values themselves are rounded to
// 1.2e-7, DOUBLE's spacing at 1e9), and means shifted by 1e9, unweighted and weighted — the scan uses
// Welford/Chan updates (covar_pop) and shifted sums, never Σx² - n x̄², which would lose every digit here
// (x² ≈ 1e18 against co-moments of ≈ 1e2: DOUBLE keeps 16 digits).
func TestCoMomentsWithLargeOffset(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][1 + i % 3] AS y, 1 + (i % 7) * 0.25 AS w,
		sin(i) + (i % 3) AS x1, cos(3 * i) * (1 + i % 3) + 0.5 * sin(i) AS x2, (i % 11) / 10.0 AS x3 FROM range(3000) r(i)`)
	mustExec(t, db, `CREATE TABLE shifted AS SELECT y, w, x1 + 1e9 AS x1, x2 + 1e9 AS x2, x3 - 1e9 AS x3 FROM d`)
	for _, weight := range []string{"", "w"} {
		var ms []*sqlnb.Model
		for _, src := range []string{"d", "shifted"} {
			spec := sqlnb.TrainSpec{Model: "m_" + src + weight, Source: src, Label: "y", Kind: sqlnb.QDA, Weight: weight}
			if weight == "" {
				spec.Features = []string{"x1", "x2", "x3"}
			}
			res, err := sqlnb.Train(ctx, db, spec)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, res.Model)
		}
		plain, shifted := comoments(ms[0]), comoments(ms[1])
		offset := map[string]float64{"x1": 1e9, "x2": 1e9, "x3": -1e9}
		// Three classes, six pairs j ≤ k of three features.
		if len(plain) != 18 || len(shifted) != 18 {
			t.Fatalf("weight %q: %d and %d co-moment rows, want 18", weight, len(plain), len(shifted))
		}
		worst := 0.0
		for k, p := range plain {
			s := shifted[k]
			// Relative to the scale of the pair, sqrt(C_jj C_kk) (an off-diagonal co-moment can be near 0).
			scale := math.Sqrt(plain[[3]string{k[0], k[1], k[1]}].CoMoment * plain[[3]string{k[0], k[2], k[2]}].CoMoment)
			rel := math.Abs(s.CoMoment-p.CoMoment) / scale
			worst = max(worst, rel)
			if rel > 1e-6 {
				t.Errorf("weight %q, class %s, %s×%s: co-moment %v with the 1e9 offset, %v without", weight, k[0], k[1], k[2], s.CoMoment, p.CoMoment)
			}
			if d := s.Mean - offset[k[1]] - p.Mean; math.Abs(d) > 1e-6 {
				t.Errorf("weight %q, class %s, %s: mean %v with the offset, %v without", weight, k[0], k[1], s.Mean, p.Mean)
			}
			if s.Count != p.Count || s.Weight != p.Weight {
				t.Errorf("count %d/%d, weight %v/%v", s.Count, p.Count, s.Weight, p.Weight)
			}
		}
		t.Logf("weight %q: co-moments with a 1e9 offset within %.2g (relative) of those without", weight, worst)
	}
}

// TestDiscriminantSingular: a constant feature or one that is a linear combination of others makes the
// covariance singular: training fails with ErrSingular naming the model, the feature and the
// regularisation to set (never a NaN model); with it set, training succeeds.
func TestDiscriminantSingular(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][1 + i % 2] AS y, sin(i) AS x1, cos(i) AS x2,
		2 * sin(i) - cos(i) AS x3, 5.0 AS c FROM range(200) r(i)`)
	type fix struct{ regParam, shrinkage float64 }
	for _, c := range []struct {
		kind     sqlnb.Kind
		features []string
		want     []string
		fix      fix
	}{
		{sqlnb.LDA, []string{"x1", "x2", "x3"}, []string{`"x3"`, "linear combination", "shrinkage"}, fix{shrinkage: 0.1}},
		{sqlnb.QDA, []string{"x1", "x2", "x3"}, []string{`"x3"`, "linear combination", "reg_param", `class "a"`}, fix{regParam: 0.1}},
		{sqlnb.QDA, []string{"c", "x1"}, []string{`"c"`, "constant", "reg_param"}, fix{regParam: 0.1}},
		{sqlnb.LDA, []string{"x1", "c"}, []string{`"c"`, "constant", "shrinkage"}, fix{shrinkage: 0.1}},
	} {
		spec := sqlnb.TrainSpec{Model: "sing", Source: "d", Label: "y", Kind: c.kind, Features: c.features}
		_, err := sqlnb.Train(ctx, db, spec)
		if !errors.Is(err, sqlnb.ErrSingular) {
			t.Fatalf("%s %v: %v, want ErrSingular", c.kind, c.features, err)
		}
		for _, w := range append(c.want, `"sing"`) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: %q does not say %s", c.kind, c.features, err, w)
			}
		}
		p := sqlnb.DefaultParams()
		p = p.With("reg_param", c.fix.regParam).With("shrinkage", c.fix.shrinkage)
		if c.fix.shrinkage > 0 {
			p = p.With("solver", sqlnb.SolverLSQR)
		}
		spec.Params = &p
		res, err := sqlnb.Train(ctx, db, spec)
		if err != nil {
			t.Fatalf("%s %v regularised: %v", c.kind, c.features, err)
		}
		s, err := sqlnb.Compile(res.Model)
		if err != nil {
			t.Fatal(err)
		}
		b := s.NewBatch(1)
		for j := range b.Num {
			b.Num[j][0] = 0.3
		}
		jll := make([]float64, 2)
		s.JointLogLikelihood(b, jll, nil)
		if math.IsNaN(jll[0]) || math.IsNaN(jll[1]) {
			t.Errorf("%s regularised: scores %v", c.kind, jll)
		}
	}
}

// TestDiscriminantMissingValues: training leaves out the rows with a missing feature value (NULL or NaN)
// and counts them; an infinite value is an error naming its column.
func TestDiscriminantMissingValues(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b'][1 + i % 2] AS y,
		CASE WHEN i % 10 = 0 THEN NULL ELSE sin(i) END AS x1,
		CASE WHEN i % 15 = 1 THEN 'nan'::DOUBLE ELSE cos(i) END AS x2 FROM range(300) r(i)
		UNION ALL SELECT NULL, 1, 2`)
	res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: sqlnb.LDA})
	if err != nil {
		t.Fatal(err)
	}
	// 30 rows with x1 NULL (i % 10 = 0), 20 with x2 NaN (i % 15 = 1), none both: 50 left out.
	if m := res.Model; m.IncompleteRows != 50 || m.Rows != 250 || m.SkippedRows != 1 {
		t.Errorf("rows %d, incomplete %d, skipped %d; want 250, 50, 1", m.Rows, m.IncompleteRows, m.SkippedRows)
	}
	mustExec(t, db, `INSERT INTO d VALUES ('a', 'inf'::DOUBLE, 0)`)
	_, err = sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: sqlnb.QDA})
	if !errors.Is(err, sqlnb.ErrBadValue) || !strings.Contains(err.Error(), `"x1" (1 row)`) {
		t.Errorf("infinite value: %v", err)
	}
}

// TestMissingEverywhere: a feature missing in every labelled row left lda, qda and logistic no rows to train
// on, and the error named an internal table ("no co-moment of features "x" and "x" in class """, "no
// intercept for class"); it now names the feature and what to do. A class whose rows all miss a value is
// trained without that class, with a warning that says so (it was silent); when that leaves one class, the
// error says why (it said "label column has the single class", though the source had three).
func TestMissingEverywhere(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c', ''][i % 4 + 1] AS y, i % 4 + sin(i) AS x, NULL::DOUBLE AS z,
		CASE WHEN i % 4 = 3 THEN 'nan'::DOUBLE ELSE cos(i) END AS w FROM range(200) r(i)`)
	for _, kind := range []sqlnb.Kind{sqlnb.LDA, sqlnb.QDA, sqlnb.Logistic} {
		_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: kind, Features: []string{"x", "z"}})
		if !errors.Is(err, sqlnb.ErrNoRows) || !strings.Contains(err.Error(), `feature "z" is missing (NULL or NaN) in all 200 labelled rows`) ||
			!strings.Contains(err.Error(), "--exclude") {
			t.Errorf("%s: %v", kind, err)
		}
		res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: kind, Features: []string{"x", "w"}})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		want := `class "" has no row without a missing value (NULL or NaN), and ` + string(kind) + ` leaves out every row with one`
		if len(res.Model.Classes) != 3 || !strings.Contains(strings.Join(res.Warnings, "\n"), want) {
			t.Errorf("%s: %d classes, warnings %q", kind, len(res.Model.Classes), res.Warnings)
		}
		_, err = sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Label: "y", Kind: kind,
			Source: "SELECT y, x, CASE WHEN y = 'a' THEN w END AS w FROM d"})
		if !errors.Is(err, sqlnb.ErrNoRows) || !strings.Contains(err.Error(), `classes "" (50 rows), "b" (50 rows), "c" (50 rows) have no row without a missing value`) ||
			!strings.Contains(err.Error(), `"w" in 150 of 200 labelled rows`) {
			t.Errorf("%s, one class left: %v", kind, err)
		}
	}
}

// TestConditionWarning: a feature that is nearly a linear combination of the others (it keeps 1e-9 of its
// variance) leaves a covariance whose inverse loses ~9 digits; lda and qda trained silently and scored
// accurate to ~1e-7 only. Training now warns, naming the feature; well-conditioned features draw no warning.
func TestConditionWarning(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][i % 3 + 1] AS y, 3 * sin(i) + i % 3 AS x1, cos(i * 1.3) AS x2,
		3 * sin(i) + i % 3 + 1e-4 * sin(i * 7.1) AS x3 FROM range(300) r(i)`)
	for _, kind := range []sqlnb.Kind{sqlnb.LDA, sqlnb.QDA} {
		res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		w := strings.Join(res.Warnings, "\n")
		if !strings.Contains(w, `feature "x3" is nearly a linear combination of the features before it`) || !strings.Contains(w, "loses about 9 of 16 digits") {
			t.Errorf("%s: warnings %q", kind, res.Warnings)
		}
		res, err = sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y", Kind: kind, Features: []string{"x1", "x2"}})
		if err != nil || len(res.Warnings) != 0 {
			t.Errorf("%s, x1 and x2: %v, warnings %q", kind, err, res.Warnings)
		}
		// Per-group models: the group whose rows make x3 nearly x1's copy is named (the pooled model was checked alone).
		res, err = sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "g", Label: "y", Kind: kind, By: []string{"g"},
			Source: "SELECT y, i < 150 AS g, x1, x2, CASE WHEN i < 150 THEN x3 ELSE cos(i * 3.1) END AS x3 FROM (SELECT row_number() OVER () - 1 AS i, * FROM d)"})
		if err != nil {
			t.Fatal(err)
		}
		if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `group "true": feature "x3" is nearly a linear combination`) || strings.Contains(w, `group "false"`) {
			t.Errorf("%s by group: warnings %q", kind, res.Warnings)
		}
	}
}

// TestDiscriminantUnitsDoNotMatter: lda, qda and unpenalised logistic regression are invariant to
// rescaling a feature (the discriminant functions are affine-invariant; lecture notes on
// LDA/QDA): features in units 1e8 apart (variances 1e8 … 1e-8, a covariance condition number of 1e16, which
// gonum reports as mat.Condition although nothing is singular) train and score as the unscaled features
// do, to 1e-9. Before, training failed with "matrix singular or near-singular with condition number 1e+16".
func TestDiscriminantUnitsDoNotMatter(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][i % 3 + 1] AS y, sin(i) + 0.5 * (i % 3) AS x1, cos(1.3 * i) AS x2,
		sin(0.7 * i) - 0.3 * (i % 3) AS x3 FROM range(150) r(i)`)
	for _, scale := range []float64{1e4, 1e8} {
		mustExec(t, db, `CREATE OR REPLACE TABLE s AS SELECT y, x1 * $1 AS x1, x2, x3 / $1 AS x3 FROM d`, scale)
		for _, kind := range []sqlnb.Kind{sqlnb.LDA, sqlnb.QDA, sqlnb.Logistic} {
			var scored [2][][]float64
			for i, src := range []string{"d", "s"} {
				p := sqlnb.DefaultParams()
				p = p.With("penalty", "none") // an L2 penalty on the coefficients is not invariant to the features' units
				res, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "u" + src, Source: src, Label: "y", Kind: kind, Params: &p})
				if err != nil {
					t.Fatalf("%s on %s (scale %g): %v", kind, src, scale, err)
				}
				s, err := sqlnb.Compile(res.Model)
				if err != nil {
					t.Fatal(err)
				}
				b := s.NewBatch(3)
				for r := range 3 {
					x := []float64{0.2 + 0.3*float64(r), -0.4, 0.1 * float64(r)}
					if src == "s" {
						x[0] *= scale
						x[2] /= scale
					}
					for j := range b.Num {
						b.Num[j][r] = x[j]
					}
				}
				jll := make([]float64, 3*3)
				s.JointLogLikelihood(b, jll, nil)
				for r := range 3 {
					p := []float64{jll[r], jll[3+r], jll[6+r]}
					mx := max(p[0], p[1], p[2])
					sum := 0.0
					for c := range p {
						p[c] = math.Exp(p[c] - mx)
						sum += p[c]
					}
					for c := range p {
						p[c] /= sum
					}
					scored[i] = append(scored[i], p)
				}
			}
			tol := 1e-9
			for r := range scored[0] {
				for c := range scored[0][r] {
					if d := math.Abs(scored[0][r][c] - scored[1][r][c]); !(d <= tol) {
						t.Errorf("%s, scale %g, point %d class %d: %v unscaled, %v scaled", kind, scale, r, c, scored[0][r][c], scored[1][r][c])
					}
				}
			}
		}
	}
}

// TestDiscriminantTooFewRows: a covariance from too few rows for its features (qda: a class of 3 rows for 3
// features, rank n - 1 = 2; lda: 6 rows in 3 classes for 4 features, rank n - K = 3) is singular whatever
// the features: the error says so, and not that a feature is a combination of the others.
func TestDiscriminantTooFewRows(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT ['a', 'b', 'c'][1 + i % 3] AS y, sin(i) AS x1, cos(i * 1.7) AS x2,
		sin(i * 2.3) AS x3, cos(i * 0.3) AS x4 FROM range(300) r(i)`)
	for _, c := range []struct {
		kind sqlnb.Kind
		src  string
		want string
	}{
		{sqlnb.QDA, `(SELECT y, x1, x2, x3 FROM d WHERE y <> 'c') UNION ALL (SELECT y, x1, x2, x3 FROM d WHERE y = 'c' LIMIT 3)`,
			`class "c" is singular: the class has 3 complete training rows for 3 features`},
		{sqlnb.LDA, `SELECT * FROM d LIMIT 6`, `6 complete training rows in 3 classes for 4 features`},
	} {
		_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "few", Source: c.src, Label: "y", Kind: c.kind})
		if !errors.Is(err, sqlnb.ErrSingular) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "linear combination") {
			t.Errorf("%s: %v, want it to say %q", c.kind, err, c.want)
		}
	}
	// Weights are no row counts: 100 rows a class of weight 0.15 each, x2 = 2·x1, is a linear combination.
	_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "w", Source: `SELECT y, x1, 2 * x1 AS x2, x3, 0.15 AS w FROM d WHERE y <> 'c'`,
		Label: "y", Kind: sqlnb.QDA, Weight: "w"})
	if !errors.Is(err, sqlnb.ErrSingular) || !strings.Contains(err.Error(), `feature "x2" is (nearly) a linear combination`) {
		t.Errorf("weighted qda with x2 = 2·x1: %v", err)
	}
}

// TestLogisticSingularNamesFeature: a singular Hessian (penalty none, a duplicated column) names the column
// that is a combination of those before it, as lda's singular covariance does (it named none).
func TestLogisticSingularNamesFeature(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT sin(i * 1.7) + (i % 3) * 0.3 AS a, cos(i * 2.3) AS b, (i % 3)::VARCHAR AS label,
		['x', 'y'][1 + i % 2] AS cat FROM range(60) r(i)`)
	params := sqlnb.DefaultParams()
	params = params.With("penalty", "none")
	for src, want := range map[string]string{
		"SELECT a, b, b AS b2, label FROM t":       `(feature "b2" is (nearly) a linear combination of the intercept and the features before it)`,
		"SELECT a, cat, cat AS cat2, label FROM t": `(level "y" of feature "cat2" is (nearly) a linear combination`,
	} {
		_, err := sqlnb.Train(ctx, db, sqlnb.TrainSpec{Model: "lr", Source: src, Label: "label", Kind: sqlnb.Logistic, Params: &params})
		if !errors.Is(err, sqlnb.ErrSingular) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", src, err)
		}
	}
}

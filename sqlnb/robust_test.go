package sqlnb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

func trainErr(db sqlnb.DB, spec sqlnb.TrainSpec) error {
	_, err := sqlnb.Train(context.Background(), db, spec)
	return err
}

// TestBadInput checks each bad input has its documented outcome: a clear error naming the model and
// column (matched by sentinel) or a correct result.
func TestBadInput(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE empty (y VARCHAR, x DOUBLE)`)
	mustExec(t, db, `CREATE TABLE nolabel AS SELECT NULL::VARCHAR AS y, 1.0 AS x`)
	mustExec(t, db, `CREATE TABLE one AS SELECT 'a' AS y, i::DOUBLE AS x FROM range(5) r(i)`)
	mustExec(t, db, `CREATE TABLE inf AS SELECT * FROM (VALUES ('a', 1.0::DOUBLE), ('a', 'inf'), ('b', 2.0), ('b', 3.0)) v(y, x)`)
	mustExec(t, db, `CREATE TABLE w AS SELECT * FROM (VALUES ('a', 1.0, -1.0), ('b', 2.0, 1.0)) v(y, x, w)`)
	mustExec(t, db, `CREATE TABLE winf AS SELECT * FROM (VALUES ('a', 1.0, 1.0::DOUBLE), ('a', 1.5, 'inf'), ('b', 2.0, 1.0)) v(y, x, w)`)
	mustExec(t, db, `CREATE TABLE wnan AS SELECT * FROM (VALUES ('a', 1.0, 1.0::DOUBLE), ('b', 1.5, 'nan'), ('b', 2.0, 1.0)) v(y, x, w)`)
	mustExec(t, db, `CREATE TABLE wnull AS SELECT * FROM (VALUES ('a', 1.0, NULL), ('b', 2.0, 1.0)) v(y, x, w)`)
	mustExec(t, db, `CREATE TABLE dates AS SELECT 'a' AS y, DATE '2020-01-01' AS d, 1.0 AS x UNION ALL SELECT 'b', DATE '2021-01-01', 2.0`)
	cases := []struct {
		name    string
		spec    sqlnb.TrainSpec
		want    error
		mention string
	}{
		{"empty source", sqlnb.TrainSpec{Source: "empty", Label: "y"}, sqlnb.ErrNoRows, `"y"`},
		{"only NULL labels", sqlnb.TrainSpec{Source: "nolabel", Label: "y"}, sqlnb.ErrNoRows, `"y"`},
		{"one class", sqlnb.TrainSpec{Source: "one", Label: "y"}, sqlnb.ErrOneClass, `"a"`},
		{"infinity", sqlnb.TrainSpec{Source: "inf", Label: "y"}, sqlnb.ErrBadValue, `"x" (1 row)`},
		{"negative weight", sqlnb.TrainSpec{Source: "w", Label: "y", Weight: "w"}, sqlnb.ErrBadValue, `"w"`},
		{"infinite weight", sqlnb.TrainSpec{Source: "winf", Label: "y", Weight: "w"}, sqlnb.ErrBadValue, `"w" holds NaN or infinity in the rows of class "a"`},
		{"NaN weight", sqlnb.TrainSpec{Source: "wnan", Label: "y", Weight: "w"}, sqlnb.ErrBadValue, `"w" holds NaN or infinity in the rows of class "b"`},
		{"NULL weight", sqlnb.TrainSpec{Source: "wnull", Label: "y", Weight: "w"}, sqlnb.ErrBadValue, `"w" is NULL in 1 rows`},
		{"unknown label", sqlnb.TrainSpec{Source: "one", Label: "nope"}, sqlnb.ErrUnknownColumn, `"nope"`},
		{"unknown feature", sqlnb.TrainSpec{Source: "one", Label: "y", Features: []string{"z"}}, sqlnb.ErrUnknownColumn, `"z"`},
		{"unsupported type", sqlnb.TrainSpec{Source: "dates", Label: "y"}, sqlnb.ErrBadType, `"d" has type DATE`},
		{"gaussian on text", sqlnb.TrainSpec{Source: "dates", Label: "y", Features: []string{"y2"}}, sqlnb.ErrUnknownColumn, `"y2"`},
		{"bad kind", sqlnb.TrainSpec{Source: "one", Label: "y", FeatureKinds: map[string]sqlnb.Kind{"x": "gaussian", "q": "categorical"}}, sqlnb.ErrUnknownColumn, `"q"`},
		{"no source", sqlnb.TrainSpec{Source: "nosuchtable", Label: "y"}, sqlnb.ErrBadOption, `"nosuchtable"`},
		{"bad name", sqlnb.TrainSpec{Model: " x", Source: "one", Label: "y"}, sqlnb.ErrBadOption, `leading or trailing`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.spec.Model == "" {
				c.spec.Model = "bad"
			}
			err := trainErr(db, c.spec)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.mention) || (c.spec.Model == "bad" && !strings.Contains(err.Error(), `train "bad"`)) {
				t.Errorf("error %q should name the model and mention %s", err, c.mention)
			}
		})
	}
}

// TestNaNIsMissing: NaN in a Gaussian feature is read as NULL (left out of the statistics).
func TestNaNIsMissing(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE a AS SELECT * FROM (VALUES ('a', 1.0::DOUBLE), ('a', 'nan'), ('a', 3.0), ('b', 2.0), ('b', 5.0)) v(y, x)`)
	mustExec(t, db, `CREATE TABLE b AS SELECT y, CASE WHEN isnan(x) THEN NULL ELSE x END AS x FROM a`)
	ma := train(t, db, sqlnb.TrainSpec{Model: "a", Source: "a", Label: "y"})
	mb := train(t, db, sqlnb.TrainSpec{Model: "b", Source: "b", Label: "y"})
	for i := range nb.StatRows(ma, gaussian.GaussianTable) {
		ga, gb := nb.StatRows(ma, gaussian.GaussianTable)[i], nb.StatRows(mb, gaussian.GaussianTable)[i]
		if ga.Count != gb.Count || ga.Mean != gb.Mean || ga.M2 != gb.M2 {
			t.Errorf("with NaN %+v, with NULL %+v", ga, gb)
		}
	}
	if nb.StatRows(ma, gaussian.GaussianTable)[0].Count != 2 || ma.Classes[0].Count != 3 {
		t.Errorf("class a: feature count %d (want 2), class count %d (want 3)", nb.StatRows(ma, gaussian.GaussianTable)[0].Count, ma.Classes[0].Count)
	}
	// A categorical DOUBLE feature: NaN is missing in training too (scoring skips it), not a category "nan".
	mc := train(t, db, sqlnb.TrainSpec{Model: "c", Source: "a", Label: "y", FeatureKinds: map[string]sqlnb.Kind{"x": sqlnb.Categorical}})
	if n := len(nb.StatRows(mc, categorical.CategoricalTable)); n != 4 {
		t.Errorf("%d category counts, want 4 (1 and 3 in class a, 2 and 5 in b)", n)
	}
	for _, c := range nb.StatRows(mc, categorical.CategoricalTable) {
		if strings.EqualFold(c.Value, "nan") {
			t.Errorf("NaN counted as a category: %+v", c)
		}
	}
}

// TestNullLabelsSkipped: rows with a NULL label are skipped and counted.
func TestNullLabelsSkipped(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0, 'u'), (NULL, 7.0, 'v'), ('b', 2.0, 'w'), ('b', 3.0, 'w'), (NULL, 1.0, 'u')) v(y, x, c)`)
	for _, feats := range [][]string{{"x"}, {"c"}, {"x", "c"}} {
		m := train(t, db, sqlnb.TrainSpec{Model: "n", Source: "d", Label: "y", Features: feats})
		if m.SkippedRows != 2 || m.Rows != 3 {
			t.Errorf("features %v: skipped %d rows of %d, want 2 of 3", feats, m.SkippedRows, m.Rows)
		}
	}
}

// TestZeroVariance: a feature constant within a class, and a feature constant everywhere, still give
// finite posteriors (ε > 0 keeps variances positive).
func TestZeroVariance(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0, 5.0), ('a', 1.0, 5.0), ('b', 2.0, 5.0), ('b', 3.0, 5.0)) v(y, x, k)`)
	s := compile(t, train(t, db, sqlnb.TrainSpec{Model: "z", Source: "d", Label: "y"}))
	b := s.NewBatch(3)
	copy(b.Num[0], []float64{1, 1.5, 100})
	copy(b.Num[1], []float64{5, 5, 6})
	jll := make([]float64, 6)
	s.JointLogLikelihood(b, jll, nil)
	post := make([]float64, 2)
	for i := range 3 {
		kernel.LogPosterior(jll, 3, 2, i, post)
		if sum := math.Exp(post[0]) + math.Exp(post[1]); math.IsNaN(sum) || !near(sum, 1, 1e-12) {
			t.Errorf("row %d: posteriors %v do not sum to 1", i, post)
		}
	}
	kernel.LogPosterior(jll, 3, 2, 0, post)
	if math.Exp(post[0]) < 0.99 {
		t.Errorf("x = 1 (class a's constant) gives p(a) = %v, want ≈ 1", math.Exp(post[0]))
	}
}

// TestLargeOffset: a feature of 1e9 + noise gives the same model as the noise alone, shifted by 1e9
// (Kahan-summed means, Welford variances).
func TestLargeOffset(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE noise AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y,
		(hash(i) % 1000000)::DOUBLE / 1000000.0 + (i % 2) * 0.3 AS x FROM range(200000) r(i)`)
	mustExec(t, db, `CREATE TABLE shifted AS SELECT y, x + 1e9 AS x FROM noise`)
	m0 := train(t, db, sqlnb.TrainSpec{Model: "n", Source: "noise", Label: "y"})
	m1 := train(t, db, sqlnb.TrainSpec{Model: "s", Source: "shifted", Label: "y"})
	if n0, n1 := len(nb.StatRows(m0, gaussian.GaussianTable)), len(nb.StatRows(m1, gaussian.GaussianTable)); n0 != 2 || n1 != 2 {
		t.Fatalf("%d and %d Gaussian rows, want 2 (x in classes a and b)", n0, n1)
	}
	for i := range nb.StatRows(m0, gaussian.GaussianTable) {
		g0, g1 := nb.StatRows(m0, gaussian.GaussianTable)[i], nb.StatRows(m1, gaussian.GaussianTable)[i]
		// A double near 1e9 has an ulp of 2^-23 ≈ 1.19e-7: each 1e9 + x is rounded to it, and so is the
		// mean itself (plus the final rounding of the 1e14-sized Kahan sum, ulp(1e14)/n). Three ulps bound
		// what any method can keep; a plain sum/n (avg) is off by 1e9 × n × 2^-53 in the worst case.
		ulp := math.Nextafter(1e9, 2e9) - 1e9
		if math.Abs((g1.Mean-1e9)-g0.Mean) > 3*ulp || !near(g1.M2, g0.M2, 1e-6) {
			t.Errorf("class %s: noise mean %v M2 %v; shifted mean-1e9 %v M2 %v", g0.Class, g0.Mean, g0.M2, g1.Mean-1e9, g1.M2)
		}
	}
	s0, s1 := compile(t, m0), compile(t, m1)
	for _, x := range []float64{0.1, 0.5, 0.65, 0.9} {
		p0, p1 := posterior1(s0, x), posterior1(s1, x+1e9)
		if math.Abs(p0-p1) > 1e-6 {
			t.Errorf("p(a | x=%v) = %v without offset, %v with", x, p0, p1)
		}
	}
}

func posterior1(s *sqlnb.Scorer, x float64) float64 {
	b := s.NewBatch(1)
	b.Num[0][0] = x
	jll := make([]float64, len(s.Labels))
	s.JointLogLikelihood(b, jll, nil)
	post := make([]float64, len(s.Labels))
	kernel.LogPosterior(jll, 1, len(s.Labels), 0, post)
	return math.Exp(post[0])
}

// TestRowOrderInvariance: shuffling the rows gives the same model.
func TestRowOrderInvariance(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y, sin(i) * 10 AS x, (i % 5)::VARCHAR AS c FROM range(5000) r(i)`)
	mustExec(t, db, `CREATE TABLE shuffled AS SELECT * FROM d ORDER BY hash(x)`)
	a := train(t, db, sqlnb.TrainSpec{Model: "a", Source: "d", Label: "y"})
	b := train(t, db, sqlnb.TrainSpec{Model: "b", Source: "shuffled", Label: "y"})
	if nA, nB := len(nb.StatRows(a, gaussian.GaussianTable)), len(nb.StatRows(b, gaussian.GaussianTable)); nA != 3 || nB != 3 {
		t.Fatalf("%d and %d Gaussian rows, want 3 (x in three classes)", nA, nB)
	}
	for i := range nb.StatRows(a, gaussian.GaussianTable) {
		if !near(nb.StatRows(a, gaussian.GaussianTable)[i].Mean, nb.StatRows(b, gaussian.GaussianTable)[i].Mean, 1e-12) || !near(nb.StatRows(a, gaussian.GaussianTable)[i].M2, nb.StatRows(b, gaussian.GaussianTable)[i].M2, 1e-12) {
			t.Errorf("%+v vs %+v", nb.StatRows(a, gaussian.GaussianTable)[i], nb.StatRows(b, gaussian.GaussianTable)[i])
		}
	}
	if len(nb.StatRows(a, categorical.CategoricalTable)) != len(nb.StatRows(b, categorical.CategoricalTable)) {
		t.Fatalf("%d vs %d counts", len(nb.StatRows(a, categorical.CategoricalTable)), len(nb.StatRows(b, categorical.CategoricalTable)))
	}
	for i := range nb.StatRows(a, categorical.CategoricalTable) {
		if nb.StatRows(a, categorical.CategoricalTable)[i] != nb.StatRows(b, categorical.CategoricalTable)[i] {
			t.Errorf("%+v vs %+v", nb.StatRows(a, categorical.CategoricalTable)[i], nb.StatRows(b, categorical.CategoricalTable)[i])
		}
	}
}

type refRow struct {
	y    string
	x    [2]*float64
	c    *string
	w    float64
	hasW bool
}

// TestSQLMatchesGoReference trains on random data with NULLs and weights by SQL and by a plain-Go
// two-pass computation, and compares every statistic.
func TestSQLMatchesGoReference(t *testing.T) {
	db := mustOpenDB(t)
	r := rand.New(rand.NewPCG(1, 2))
	mustExec(t, db, `CREATE TABLE d (y VARCHAR, x0 DOUBLE, x1 DOUBLE, c VARCHAR, w DOUBLE)`)
	var rows []refRow
	for range 3000 {
		row := refRow{y: string(rune('a' + r.IntN(3))), w: math.Round(r.Float64()*100) / 10, hasW: true}
		for j := range 2 {
			if r.IntN(10) > 0 {
				v := r.NormFloat64()*float64(j+1) + float64(row.y[0]-'a')
				row.x[j] = &v
			}
		}
		if r.IntN(8) > 0 {
			v := string(rune('p' + r.IntN(4)))
			row.c = &v
		}
		rows = append(rows, row)
		mustExec(t, db, `INSERT INTO d VALUES (?, ?, ?, ?, ?)`, row.y, row.x[0], row.x[1], row.c, row.w)
	}
	for _, weighted := range []bool{false, true} {
		spec := sqlnb.TrainSpec{Model: "r", Source: "d", Label: "y", Features: []string{"x0", "x1", "c"}}
		if weighted {
			spec.Weight = "w"
		}
		m := train(t, db, spec)
		// Three classes: x0 and x1 in each; c's four values in each.
		if ng, nc := len(nb.StatRows(m, gaussian.GaussianTable)), len(nb.StatRows(m, categorical.CategoricalTable)); ng != 6 || nc != 12 {
			t.Fatalf("weighted=%v: %d Gaussian rows and %d category counts, want 6 and 12", weighted, ng, nc)
		}
		for _, g := range nb.StatRows(m, gaussian.GaussianTable) {
			j := int(g.Feature[1] - '0')
			var n, wsum, sum, wsx float64
			for _, row := range rows {
				if row.y == g.Class && row.x[j] != nil {
					n++
					sum += *row.x[j]
					wsum += row.w
					wsx += row.w * *row.x[j]
				}
			}
			mean, wmean := sum/n, wsx/wsum
			var m2, wm2 float64
			for _, row := range rows {
				if row.y == g.Class && row.x[j] != nil {
					m2 += (*row.x[j] - mean) * (*row.x[j] - mean)
					wm2 += row.w * (*row.x[j] - wmean) * (*row.x[j] - wmean)
				}
			}
			if float64(g.Count) != n || !near(g.Mean, mean, 1e-12) || !near(g.M2, m2, 1e-10) {
				t.Errorf("weighted=%v %s/%s: got n %d mean %v m2 %v; want %v %v %v", weighted, g.Feature, g.Class, g.Count, g.Mean, g.M2, n, mean, m2)
			}
			if weighted && (!near(g.Weight, wsum, 1e-12) || !near(g.WMean, wmean, 1e-12) || !near(g.WM2, wm2, 1e-10)) {
				t.Errorf("%s/%s weighted: got %v %v %v; want %v %v %v", g.Feature, g.Class, g.Weight, g.WMean, g.WM2, wsum, wmean, wm2)
			}
		}
		for _, c := range nb.StatRows(m, categorical.CategoricalTable) {
			var n, w float64
			for _, row := range rows {
				if row.y == c.Class && row.c != nil && *row.c == c.Value {
					n++
					w += row.w
				}
			}
			want := n
			if weighted {
				want = w
			}
			if float64(c.Count) != n || !near(c.Weight, want, 1e-12) {
				t.Errorf("weighted=%v count %s/%s: got %d %v, want %v %v", weighted, c.Class, c.Value, c.Count, c.Weight, n, want)
			}
		}
	}
}

// TestOddIdentifiers trains on columns and a label whose names need quoting.
func TestOddIdentifiers(t *testing.T) {
	db := mustOpenDB(t)
	names := []string{`my label`, `x "quoted"`, `(paren)`, `ünïcødé 数据`, `semi;colon`, `a.b`}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = queries.Ident(n)
	}
	mustExec(t, db, `CREATE SCHEMA "odd schema"`)
	mustExec(t, db, `CREATE TABLE "odd schema"."odd ""table""" AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS `+q[0]+
		`, i::DOUBLE AS `+q[1]+`, (i % 3)::VARCHAR AS `+q[2]+`, (i % 4 = 0) AS `+q[3]+`, i % 5 AS `+q[4]+`, 1.5 * i AS `+q[5]+` FROM range(20) r(i)`)
	m := train(t, db, sqlnb.TrainSpec{Model: `model "with" 'quotes' ✓`, Source: `odd schema.odd "table"`, Label: names[0]})
	if len(m.Features) != 5 {
		t.Fatalf("features %+v", m.Features)
	}
	got, err := sqlnb.Load(context.Background(), db, m.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Features) != 5 {
		t.Fatalf("loaded features %+v", got.Features)
	}
	for i, f := range got.Features {
		if f.Name != names[i+1] {
			t.Errorf("feature %d = %q, want %q", i, f.Name, names[i+1])
		}
	}
}

// TestFailedRetrainKeepsModel: a training that fails leaves the stored model as it was.
func TestFailedRetrainKeepsModel(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0::DOUBLE), ('a', 2.0), ('b', 5.0)) v(y, x)`)
	before := train(t, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"})
	mustExec(t, db, `INSERT INTO d VALUES ('b', 'inf')`)
	if err := trainErr(db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"}); !errors.Is(err, sqlnb.ErrBadValue) {
		t.Fatalf("retrain err = %v, want ErrBadValue", err)
	}
	after, err := sqlnb.Load(ctx, db, "m")
	if err != nil {
		t.Fatal(err)
	}
	if after.Generation != before.Generation || after.Rows != 3 {
		t.Errorf("model changed after a failed retrain: %+v", after)
	}
}

// TestSources trains from a table, a view, a query, and parquet, CSV and JSON files (and a glob); tables by
// qualified names: in a schema, in an attached database, quoted, with dots in the name.
func TestSources(t *testing.T) {
	db := mustOpenDB(t)
	dir := t.TempDir()
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, i::DOUBLE AS x FROM range(10) r(i)`)
	mustExec(t, db, `CREATE VIEW v AS SELECT * FROM d`)
	mustExec(t, db, `CREATE SCHEMA s`)
	mustExec(t, db, `CREATE TABLE s.d AS FROM d`)
	mustExec(t, db, `CREATE TABLE "a.b" AS FROM d`)
	mustExec(t, db, `ATTACH ':memory:' AS other`)
	mustExec(t, db, `CREATE TABLE other.d AS FROM d`)
	mustExec(t, db, `CREATE SCHEMA other."my s"`)
	mustExec(t, db, `CREATE TABLE other."my s"."my t" AS FROM d`)
	for _, f := range []string{"d1.parquet", "d2.parquet", "d.csv", "d.json"} {
		format := strings.TrimPrefix(filepath.Ext(f), ".")
		mustExec(t, db, `COPY d TO '`+filepath.Join(dir, f)+`' (FORMAT `+format+`)`)
	}
	for _, src := range []string{"d", "v", "main.d", "s.d", "a.b", `"a.b"`, "other.d", "other.main.d", `other."my s"."my t"`,
		`"other"."d"`, "D", "Main.D", "OTHER.D", `"OTHER"."D"`, `other."MY S"."My T"`, "SELECT * FROM d WHERE x < 8", "  from d;", "-- the rows\n/* all */ SELECT * FROM d WHERE x < 8",
		filepath.Join(dir, "d1.parquet"), filepath.Join(dir, "*.parquet"), filepath.Join(dir, "d.csv"), filepath.Join(dir, "d.json")} {
		m := train(t, db, sqlnb.TrainSpec{Model: "src", Source: src, Label: "y"})
		want := int64(10)
		switch {
		case strings.Contains(src, "x < 8"):
			want = 8
		case strings.Contains(src, "*"):
			want = 20
		}
		if m.Rows != want {
			t.Errorf("source %q: %d rows, want %d", src, m.Rows, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "d.csv")); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"other.nope", "nope.d", "other.s.d", "a..b", "x.y.z.w"} {
		if _, err := sqlnb.Train(context.Background(), db, sqlnb.TrainSpec{Model: "src", Source: src, Label: "y"}); !errors.Is(err, sqlnb.ErrBadOption) || !strings.Contains(err.Error(), "no such table") {
			t.Errorf("source %q: err = %v, want no such table", src, err)
		}
	}
	// A temporary table is found on its own connection.
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE TEMP TABLE tt AS SELECT * FROM d WHERE x < 4`); err != nil {
		t.Fatal(err)
	}
	if m := train(t, conn, sqlnb.TrainSpec{Model: "temp", Source: "tt", Label: "y"}); m.Rows != 4 {
		t.Errorf("temporary table: %d rows, want 4", m.Rows)
	}
	// A temporary table hides a table of the same name when the name is bare, as in DuckDB, but not when the
	// database is named; a schema's table wins over a table named with a dot, as DuckDB reads s.d.
	if _, err := conn.ExecContext(ctx, `CREATE TEMP TABLE d AS SELECT * FROM main.d WHERE x < 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE "s.d" AS SELECT * FROM main.d WHERE x < 2`); err != nil {
		t.Fatal(err)
	}
	var current string
	if err := conn.QueryRowContext(ctx, `SELECT current_database()`).Scan(&current); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]int64{"d": 3, current + ".d": 10, current + ".main.d": 10, "s.d": 10, `"s.d"`: 2} {
		if m := train(t, conn, sqlnb.TrainSpec{Model: "temp", Source: src, Label: "y"}); m.Rows != want {
			t.Errorf("source %q: %d rows, want %d", src, m.Rows, want)
		}
	}
}

// TestExportImport round-trips a model through JSON and rejects damaged files.
func TestExportImport(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0, 'u'), ('a', 2.0, 'v'), ('b', 5.0, 'u')) v(y, x, c)`)
	m := train(t, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"})
	var buf strings.Builder
	if err := store.Export(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := sqlnb.Import(strings.NewReader(buf.String()), "copy")
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlnb.Save(ctx, db, got); err != nil {
		t.Fatal(err)
	}
	loaded, err := sqlnb.Load(ctx, db, "copy")
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.StatRows(loaded, gaussian.GaussianTable)) != len(nb.StatRows(m, gaussian.GaussianTable)) || len(nb.StatRows(loaded, categorical.CategoricalTable)) != len(nb.StatRows(m, categorical.CategoricalTable)) || nb.StatRows(loaded, gaussian.GaussianTable)[0] != nb.StatRows(m, gaussian.GaussianTable)[0] {
		t.Errorf("import changed the statistics")
	}
	for _, bad := range []string{`{}`, `not json`, strings.Replace(buf.String(), `"count": 2`, `"count": -2`, 1),
		strings.Replace(buf.String(), `"kind": "gaussian"`, `"kind": "poisson"`, 1), strings.Replace(buf.String(), fmt.Sprintf(`"format_version": %d`, nb.FormatVersion), `"format_version": 9`, 1),
		strings.Replace(buf.String(), `"kind": "gaussian"`, `"kind": "nonsense"`, 1), strings.Replace(buf.String(), `"n_rows": 3`, `"n_rows": 4`, 1)} {
		if _, err := sqlnb.Import(strings.NewReader(bad), ""); !errors.Is(err, sqlnb.ErrInvalidModel) {
			t.Errorf("import of damaged JSON: err = %v, want ErrInvalidModel", err)
		}
	}
	if _, err := sqlnb.Load(ctx, db, "nope"); !errors.Is(err, sqlnb.ErrUnknownModel) || !strings.Contains(err.Error(), `"copy", "m"`) {
		t.Errorf("unknown model error %v should list the models", err)
	}
	if err := sqlnb.Drop(ctx, db, "copy"); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlnb.Load(ctx, db, "copy"); !errors.Is(err, sqlnb.ErrUnknownModel) {
		t.Errorf("after drop: %v", err)
	}
}

// FuzzImport feeds arbitrary bytes to Import: it must return a valid model or an error, never panic.
func FuzzImport(f *testing.F) {
	db, _ := sql.Open("duckdb", "")
	defer db.Close()
	f.Add(`{"name":"m","label":"y","params":{"alpha":1,"var_smoothing":1e-9,"variance":"class","priors":"fit"},"format_version":1,` +
		`"features":[{"name":"x","kind":"gaussian","type":"DOUBLE"}],"classes":[{"label":"a","count":1,"weight":1},{"label":"b","count":1,"weight":1}],` +
		`"gaussian":[{"feature":"x","class":"a","count":1,"mean":0,"m2":0,"weight":1,"wmean":0,"wm2":0},{"feature":"x","class":"b","count":1,"mean":1,"m2":0,"weight":1,"wmean":1,"wm2":0}]}`)
	f.Add(`{"name":"","format_version":1}`)
	f.Fuzz(func(t *testing.T, data string) {
		m, err := sqlnb.Import(strings.NewReader(data), "")
		if err != nil {
			return
		}
		if _, err := sqlnb.Compile(m); err != nil {
			t.Fatalf("Import accepted a model Compile rejects: %v", err)
		}
	})
}

// TestCorruptedStoreRejected: hand-edited model tables that no training could produce are an invalid model
// error naming the table and what is wrong, never silently accepted.
func TestCorruptedStoreRejected(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0, 'u'), ('a', 2.0, 'v'), ('b', 5.0, 'u'), ('b', 6.0, 'v')) v(y, x, c)`)
	for _, c := range []struct{ edit, mention string }{
		{`UPDATE nb.classes SET weight = 0 WHERE label = 'a'`, "nb.classes"},
		{`UPDATE nb.classes SET weight = 3 WHERE label = 'a'`, "nb.classes"},
		{`UPDATE nb.gaussian SET weight = 0 WHERE class = 'a'`, "nb.gaussian"},
		{`UPDATE nb.gaussian SET weight = 1e300 WHERE class = 'a'`, "nb.gaussian"},
		{`ALTER TABLE nb.gaussian ALTER mean DROP NOT NULL; UPDATE nb.gaussian SET mean = NULL WHERE class = 'a'`, "nb.gaussian"},
		{`UPDATE nb.categorical SET count = 99 WHERE class = 'a' AND value = 'u'`, "nb.categorical"},
		// Scoring reads the weighted mean; an unweighted model's must be its mean (it was accepted, and scored).
		{`UPDATE nb.gaussian SET wmean = mean + 1 WHERE class = 'a'`, "weighted moment"},
		{`UPDATE nb.gaussian SET wm2 = m2 * 2 + 1 WHERE class = 'b'`, "weighted moment"},
		{`UPDATE nb.models SET format_version = 999`, "format version 999"},
		{`UPDATE nb.models SET format_version = -1`, "format version -1"},
	} {
		train(t, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"})
		mustExec(t, db, c.edit)
		_, err := sqlnb.Load(ctx, db, "m")
		if !errors.Is(err, sqlnb.ErrInvalidModel) || !strings.Contains(err.Error(), c.mention) || !strings.Contains(err.Error(), `"m"`) {
			t.Errorf("%s: %v, want an invalid model error naming %q and the model", c.edit, err, c.mention)
		}
		mustExec(t, db, `DROP SCHEMA nb CASCADE`)
	}
	m := train(t, db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"})
	var buf strings.Builder
	if err := store.Export(&buf, m); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{strings.Replace(buf.String(), `"value": "u"`, `"value": null`, 1),
		strings.Replace(buf.String(), `"mean": 1.5`, `"mean": null`, 1), strings.Replace(buf.String(), `"weight": 2,
      "wmean"`, `"weight": 0,
      "wmean"`, 1), strings.Replace(buf.String(), `"wmean": 1.5`, `"wmean": 2.5`, 1)} {
		if bad == buf.String() {
			t.Fatalf("the edit did not apply to %s", buf.String())
		}
		if _, err := sqlnb.Import(strings.NewReader(bad), ""); !errors.Is(err, sqlnb.ErrInvalidModel) {
			t.Errorf("import of an edited model: %v, want ErrInvalidModel", err)
		}
	}
}

// TestImportLabelTypeAndGroupKeys: import refuses a class that does not read as the label type (an INTEGER
// model's class "two": nb_predict would have turned to VARCHAR) and a null group key (it read as "", the
// group of empty-text values); models of every label type sqlnb trains round-trip (ENUM, LIST and STRUCT
// labels, a DOUBLE label with NaN, which DuckDB writes "-nan").
func TestImportLabelTypeAndGroupKeys(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT i % 3 AS y, i * 0.5 AS x, ['j', 'k'][i % 2 + 1] AS g FROM range(60) r(i)`)
	export := func(m *sqlnb.Model) string {
		var buf strings.Builder
		if err := store.Export(&buf, m); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	plain := export(train(t, db, sqlnb.TrainSpec{Model: "m", Source: "SELECT y, x FROM d", Label: "y"}))
	grouped := export(train(t, db, sqlnb.TrainSpec{Model: "gk", Source: "d", Label: "y", By: []string{"g"}}))
	for _, c := range []struct{ json, mention string }{
		{strings.ReplaceAll(plain, `"2"`, `"two"`), `class "two" does not read as the label type`},
		{strings.Replace(grouped, `"key": [
        "j"
      ]`, `"key": [
        null
      ]`, 1), "group 1 has a null key value"},
	} {
		if c.json == plain || c.json == grouped {
			t.Fatalf("the edit for %q did not apply", c.mention)
		}
		if _, err := sqlnb.Import(strings.NewReader(c.json), ""); !errors.Is(err, sqlnb.ErrInvalidModel) || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("import: %v, want ErrInvalidModel saying %q", err, c.mention)
		}
	}
	if _, err := sqlnb.Import(strings.NewReader(grouped), "copy"); err != nil {
		t.Errorf("import of the grouped model as exported: %v", err)
	}
	mustExec(t, db, `CREATE TABLE l AS SELECT ['sad', 'ok', 'happy'][(i % 3) + 1]::ENUM('sad', 'ok', 'happy') AS ye, [['a', 'b'][(i % 2) + 1]] AS yl,
		{'k': ['a', 'b'][(i % 2) + 1]} AS ys, CASE WHEN i % 2 = 0 THEN 'nan'::DOUBLE ELSE 1.5 END AS yn, i * 0.25 AS x FROM range(60) r(i)`)
	for _, y := range []string{"ye", "yl", "ys", "yn"} {
		if _, err := sqlnb.Import(strings.NewReader(export(train(t, db, sqlnb.TrainSpec{Model: y, Source: "SELECT " + y + ", x FROM l", Label: y}))), ""); err != nil {
			t.Errorf("import of a model with label %s: %v", y, err)
		}
	}
}

// TestPipeSourceRefused: a source that is a FIFO, or whose quoted strings name one (read_csv('/dev/stdin')
// from a pipe), is refused up front with what to do: sqlnb reads a source more than once, and the second read
// of a pipe found no columns ("it has column0") or, for a FIFO, blocked for ever.
func TestPipeSourceRefused(t *testing.T) {
	db := mustOpenDB(t)
	fifo := filepath.Join(t.TempDir(), "in.csv")
	if err := syscallMkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, src := range []string{fifo, "read_csv('" + fifo + "')", "SELECT * FROM '" + fifo + "' WHERE x > 0"} {
		err := trainErr(db, sqlnb.TrainSpec{Model: "p", Source: src, Label: "y"})
		if !errors.Is(err, sqlnb.ErrBadOption) || !strings.Contains(err.Error(), "a pipe or device") || !strings.Contains(err.Error(), "save the data to a file first") {
			t.Errorf("source %s: %v", src, err)
		}
	}
}

// TestPartialParamsSaysDefaultParams: a Params literal with one field set is refused with the way to build one
// (it said only `variance "": use class, pooled or sample`).
func TestPartialParamsSaysDefaultParams(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 2)::VARCHAR AS y, i * 1.0 AS x FROM range(20) r(i)`)
	err := trainErr(db, sqlnb.TrainSpec{Model: "p", Source: "d", Label: "y", Params: ptr(sqlnb.Params{}.With("alpha", 2.0))})
	if !errors.Is(err, sqlnb.ErrBadOption) || !strings.Contains(err.Error(), "sqlnb.DefaultParams()") {
		t.Errorf("Params{Alpha: 2}: %v", err)
	}
	p := sqlnb.DefaultParams()
	p = p.With("alpha", 2)
	if err := trainErr(db, sqlnb.TrainSpec{Model: "p", Source: "d", Label: "y", Params: &p}); err != nil {
		t.Error(err)
	}
}

// TestMisuseIsAnError: nil or zero arguments to the library are errors, not panics (each panicked: a nil
// database, a nil model, a Scorer not made by Compile, CrossValidate without a registrar — after training
// every fold).
func TestMisuseIsAnError(t *testing.T) {
	ctx := context.Background()
	var nilDB *sql.DB
	if _, err := sqlnb.Train(ctx, nilDB, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"}); !errors.Is(err, sqlnb.ErrBadOption) {
		t.Errorf("Train with a nil *sql.DB: %v", err)
	}
	if _, err := sqlnb.Compile(nil); !errors.Is(err, sqlnb.ErrBadOption) {
		t.Errorf("Compile(nil): %v", err)
	}
	if _, _, err := (&sqlnb.Scorer{}).ScoreRow(map[string]any{"x": 1.0}); !errors.Is(err, sqlnb.ErrBadOption) {
		t.Errorf("ScoreRow of a zero Scorer: %v", err)
	}
	db := mustOpenDB(t)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := sqlnb.CrossValidate(ctx, conn, nil, sqlnb.CVSpec{Folds: 2, Train: sqlnb.TrainSpec{Model: "cv", Source: "d", Label: "y"}}); !errors.Is(err, sqlnb.ErrBadOption) {
		t.Errorf("CrossValidate without a registrar: %v", err)
	}
}

// TestClosedDatabaseSource: a table source on a closed database says the database is closed (it said "no such
// table or view", an ErrBadOption).
func TestClosedDatabaseSource(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 2)::VARCHAR AS y, i * 1.0 AS x FROM range(20) r(i)`)
	db.Close()
	err := trainErr(db, sqlnb.TrainSpec{Model: "m", Source: "d", Label: "y"})
	if err == nil || !strings.Contains(err.Error(), "database is closed") || errors.Is(err, sqlnb.ErrBadOption) {
		t.Errorf("%v", err)
	}
}

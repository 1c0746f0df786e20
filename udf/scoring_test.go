package udf_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

func mixedDB(t *testing.T) *udf.DB {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT CASE WHEN i % 3 = 0 THEN 'yes' ELSE 'no' END AS y,
		(i % 3) * 1.5 + (i % 7) * 0.1 AS x, CASE WHEN i % 2 = 0 THEN 'red' ELSE 'blue' END AS color,
		(i % 4)::INTEGER AS n, i % 5 = 0 AS flag FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 't', 'y', feature_kinds := 'n=categorical,flag=bernoulli')`)
	return db
}

func one(t *testing.T, db *udf.DB, stmt string, args ...any) string {
	t.Helper()
	rows := queryStrings(t, db, stmt, args...)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: %v", stmt, rows)
	}
	return rows[0][0]
}

func queryErr(db *udf.DB, stmt string) error {
	rows, err := db.QueryContext(context.Background(), stmt)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// TestBindingForms: the struct is matched by name (any order, extra fields ignored, case-insensitive),
// positionally in training order, and argument types are converted.
func TestBindingForms(t *testing.T) {
	db := mixedDB(t)
	want := one(t, db, `SELECT nb_predict_proba('m', {'x': 1.6, 'color': 'red', 'n': 2, 'flag': true})::VARCHAR`)
	for _, q := range []string{
		`SELECT nb_predict_proba('m', {'flag': true, 'extra': [1,2], 'n': 2, 'COLOR': 'red', 'x': 1.6})::VARCHAR`,
		`SELECT nb_predict_proba('m', struct_pack(x := 1.6::FLOAT, color := 'red', n := 2::BIGINT, flag := 1))::VARCHAR`,
		`SELECT nb_predict_proba('m', 1.6, 'red', 2, true)::VARCHAR`,
		`SELECT nb_predict_proba('m', 1.6::DECIMAL(5,2), 'red'::ENUM('red','blue'), 2.0::DOUBLE, 3.5)::VARCHAR`,
		`SELECT nb_predict_proba('m', 16::TINYINT / 10, 'red', 2::HUGEINT, 0.5::DOUBLE)::VARCHAR`,
	} {
		if got := one(t, db, q); got != want && !strings.Contains(q, "FLOAT") {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	}
	// FLOAT rounds 1.6 differently: close, not equal.
	p1 := one(t, db, `SELECT nb_proba('m', struct_pack(x := 1.6::FLOAT, color := 'red', n := 2, flag := true), 'yes')`)
	p2 := one(t, db, `SELECT nb_proba('m', struct_pack(x := 1.6, color := 'red', n := 2, flag := true), 'yes')`)
	a, _ := strconv.ParseFloat(p1, 64)
	b, _ := strconv.ParseFloat(p2, 64)
	if math.Abs(a-b) > 1e-5 {
		t.Errorf("FLOAT input: %v vs %v", a, b)
	}
}

// TestCategoryArgumentTypes: a categorical feature takes arguments of the class of values it was trained on
// (text, booleans or numbers; DuckDB casts none of them to another implicitly) — anything else is an error
// naming the feature and what to do, as for a Gaussian feature given text, never a silently unseen value.
func TestCategoryArgumentTypes(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS y, i % 2 = 0 AS b,
		(i % 4)::INTEGER AS n, ['u', 'v'][1 + i % 2] AS s FROM range(100) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 't', 'y', feature_kinds := 'n=categorical')`)
	for _, c := range []struct{ args, want string }{
		{`{'b': 1, 'n': 2, 's': 'u'}`, "give a BOOLEAN"},
		{`{'b': 'yes', 'n': 2, 's': 'u'}`, "give a BOOLEAN"},
		{`{'b': true, 'n': '2', 's': 'u'}`, "give a number"},
		{`{'b': true, 'n': 2, 's': 3}`, "cast it to VARCHAR"},
		{`{'b': true, 'n': 2, 's': true}`, "cast it to VARCHAR"},
	} {
		err := queryErr(db, `SELECT nb_predict('m', `+c.args+`)`)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "feature") {
			t.Errorf("%s: %v, want an error saying %q", c.args, err, c.want)
		}
	}
	if got := one(t, db, `SELECT nb_predict('m', {'b': false, 'n': 2::BIGINT, 's': 'u'::ENUM('u', 'v')}) IS NOT NULL`); got != "true" {
		t.Errorf("same classes of values in other types: %v", got)
	}
}

// TestNullsAndUnseen: NULL fields are marginalised, all NULL gives the prior, a NULL struct gives NULL,
// unseen categories never fail.
func TestNullsAndUnseen(t *testing.T) {
	db := mixedDB(t)
	prior := one(t, db, `SELECT nb_proba('m', {'x': NULL, 'color': NULL, 'n': NULL, 'flag': NULL}, 'yes')`)
	if p, _ := strconv.ParseFloat(prior, 64); math.Abs(p-100.0/300) > 1e-12 {
		t.Errorf("all features NULL: p(yes) = %v, want the prior 1/3", prior)
	}
	if got := one(t, db, `SELECT nb_proba('m', NULL, NULL, NULL, NULL, 'yes')`); got != prior {
		t.Errorf("positional NULLs: %v, want %v", got, prior)
	}
	if got := one(t, db, `SELECT nb_predict('m', NULL::STRUCT(x DOUBLE, color VARCHAR, n INT, flag BOOL))`); got != "NULL" {
		t.Errorf("NULL struct: %v, want NULL", got)
	}
	withX := one(t, db, `SELECT nb_proba('m', {'x': 0.1, 'color': NULL, 'n': NULL, 'flag': NULL}, 'yes')`)
	withUnseen := one(t, db, `SELECT nb_proba('m', {'x': 0.1, 'color': 'purple', 'n': 99, 'flag': NULL}, 'yes')`)
	if withX == withUnseen {
		t.Errorf("unseen categories with α = 1 should carry the smoothed mass α/(n+αJ)")
	}
	// α = 0 scores as α = 1e-10 (scikit-learn 1.2's rule): exactly as that model, never NaN.
	mustExec(t, db, `CALL nb_set('m', alpha := 1e-10)`)
	tiny := one(t, db, `SELECT nb_proba('m', {'x': 0.1, 'color': 'purple', 'n': 99, 'flag': NULL}, 'yes')`)
	mustExec(t, db, `CALL nb_set('m', alpha := 0)`)
	if got := one(t, db, `SELECT nb_proba('m', {'x': 0.1, 'color': 'purple', 'n': 99, 'flag': NULL}, 'yes')`); got != tiny || got == "NaN" {
		t.Errorf("α = 0: %v, want the α = 1e-10 model's %v", got, tiny)
	}
	for _, q := range []string{`SELECT nb_predict('m', {'x': 'nan'::DOUBLE, 'color': 'red', 'n': 1, 'flag': false})`,
		`SELECT nb_predict('m', {'x': 'inf'::DOUBLE, 'color': 'red', 'n': 1, 'flag': false})`} {
		if got := one(t, db, q); got != "yes" && got != "no" {
			t.Errorf("%s = %v", q, got)
		}
	}
}

// TestBindErrors: errors name the model, the feature and what to do.
func TestBindErrors(t *testing.T) {
	db := mixedDB(t)
	for _, c := range []struct{ q, want string }{
		{`SELECT nb_predict('nope', t) FROM t`, `unknown model "nope" (models: "m")`},
		{`SELECT nb_predict(y, t) FROM t`, `constant model name`},
		{`SELECT nb_predict('m', {'x': 1.0})`, `needs feature "color"`},
		{`SELECT nb_predict('m', 1.0, 'red')`, `has 4 features ("x", "color", "n", "flag") but 2 were given`},
		{`SELECT nb_predict('m', 'text', 'red', 1, true)`, `model "m": feature "x" is gaussian (trained on DECIMAL(22,1)) but the argument has type VARCHAR: cast it to DOUBLE (SELECT CAST("x" AS DOUBLE) AS "x", ... in the query`},
		{`SELECT nb_predict('m', 1.0, [1], 1, true)`, `feature "color" is categorical`},
		{`SELECT nb_predict('m', 1.0, 'red', 1, uuid())`, `type UUID`},
		{`SELECT nb_predict('m', 1.0, 0.5, 1, true)`, `feature "color" is categorical (trained on VARCHAR) but the argument has type DECIMAL(2,1)`}, // not SMALLINT
		{`SELECT nb_proba('m', t, 'maybe') FROM t`, `has no class "maybe" (classes: no, yes)`},
		{`SELECT nb_proba('m', t, NULL) FROM t`, `argument 3, the class, is NULL: name a class (classes: no, yes)`},
		{`SELECT nb_predict('m', NULL)`, `argument 2 is a NULL without a type: pass the row as a struct`},
		{`SELECT nb_predict($1::VARCHAR, t) FROM t`, `not a column or a prepared statement's parameter`},
		{`SELECT nb_predict()`, `No function matches`},
	} {
		err := queryErr(db, c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.q, err, c.want)
		}
	}
}

// TestPreparedParameters: a struct row of prepared-statement parameters ({'x': $1, ...}) binds once DuckDB
// knows their types, as positional parameters do (it was refused at PREPARE: "the argument has type type #0");
// a parameter as the model name is an error that says to write the name in (it said to cast it to DOUBLE).
func TestPreparedParameters(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y, (i % 3) + sin(i) * 1.5 AS x1, cos(i * 7) * 2 + (i % 3) AS x2 FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('g', 'd', 'y')`)
	want := one(t, db, `SELECT nb_predict_proba('g', {'x1': 0.5, 'x2': 2.0})::VARCHAR`)
	for _, q := range []string{`SELECT nb_predict_proba('g', {'x1': ?, 'x2': ?})::VARCHAR`, `SELECT nb_predict_proba('g', struct_pack(x1 := ?, x2 := ?))::VARCHAR`,
		`SELECT nb_predict_proba('g', ?, ?)::VARCHAR`} {
		var got string
		if err := db.QueryRowContext(context.Background(), q, 0.5, 2.0).Scan(&got); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", q, got, err, want)
		}
	}
	var got string
	err := db.QueryRowContext(context.Background(), `SELECT nb_predict(?, 0.5::DOUBLE, 2.0::DOUBLE)`, "g").Scan(&got)
	// DuckDB 1.5 binds the call before it knows the parameter's type (the message of an unknown type); 2.0
	// with its type, as a value that is not constant.
	if err == nil || !strings.Contains(err.Error(), "the model name must be a constant string, not a prepared-statement parameter") &&
		!strings.Contains(err.Error(), "must be a constant model name, as in nb_predict('model', t) ... FROM tbl t (not a column or a prepared statement's parameter") {
		t.Errorf("a parameter as the model name: %v", err)
	}
}

// TestHintsQuoteNames: the struct_pack hint of a missing feature and of a named argument quotes the name as
// DuckDB reads it ("size.cm" and "it's" as identifiers; a struct key as a string, its quote doubled), so the
// hint runs as written.
func TestHintsQuoteNames(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0, 2.0), ('b', 3.0, 1.0), ('a', 1.5, 2.5), ('b', 3.5, 0.5)) v(y, "size.cm", "it's")`)
	mustExec(t, db, `CALL nb_train('d', 'd', 'y')`)
	for _, c := range []struct{ q, want string }{
		{`SELECT nb_predict('d', {'it''s': 1.0})`, `struct_pack("size.cm" := ...)`},
		{`SELECT nb_predict('d', "it's" := 1.0, "size.cm" := 2.0)`, `named argument "it's" := …`},
		{`SELECT nb_predict('d', "it's" := 1.0, "size.cm" := 2.0)`, `nb_predict('model', {'it''s': …}) or struct_pack("it's" := …)`},
		// A hyperparameter given as a named argument is not a feature: say where it goes.
		{`SELECT nb_predict('d', d, alpha := 2) FROM d`, `alpha is a hyperparameter of the model: set it with CALL nb_set('model', alpha := …)`},
	} {
		err := queryErr(db, c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.q, err, c.want)
		}
	}
	if got := one(t, db, `SELECT nb_predict('d', struct_pack("size.cm" := 1.0, "it's" := 2.0))`); got != "a" {
		t.Errorf("the hint as written: %v, want a", got)
	}
}

// TestSQLMatchesGoScorer scores 50,000 random rows with NULLs in SQL and with the Go Scorer.
func TestSQLMatchesGoScorer(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (hash(i) % 4)::VARCHAR AS y,
		CASE WHEN i % 11 = 0 THEN NULL ELSE sin(i) * 3 + (hash(i) % 4) END AS a,
		CASE WHEN i % 13 = 0 THEN NULL ELSE cos(i * 7) + (hash(i) % 4) * 0.5 END AS b,
		sin(i * 3) AS c, cos(i) * 2 AS d, sin(i / 7) AS e,
		CASE WHEN i % 17 = 0 THEN NULL ELSE ((hash(i) % 4 + i % 3))::VARCHAR END AS k
		FROM range(50000) r(i)`)
	mustExec(t, db, `CALL nb_train('r', 'd', 'y')`)
	m, err := sqlnb.Load(context.Background(), db, "r")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(context.Background(), `SELECT a, b, c, d, e, k, nb_joint_log_likelihood('r', t)::VARCHAR, nb_predict('r', t) FROM d t`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	worst, n := 0.0, 0
	var nums [5]*float64
	var k *string
	var jllText, pred string
	b := s.NewBatch(1)
	jll := make([]float64, len(s.Labels))
	for rows.Next() {
		if err := rows.Scan(&nums[0], &nums[1], &nums[2], &nums[3], &nums[4], &k, &jllText, &pred); err != nil {
			t.Fatal(err)
		}
		mask := uint64(0)
		for j := range 5 {
			if nums[j] != nil {
				b.Num[j][0] = *nums[j]
				mask |= 1
			} else {
				b.Num[j][0] = 0
			}
			if nums[j] == nil {
				b.Valid[j] = []uint64{0}
			} else {
				b.Valid[j] = nil
			}
		}
		f := s.Inputs[5]
		b.Cat[5][0] = f.Missing()
		if k != nil {
			b.Cat[5][0] = f.Lookup(*k)
		}
		s.JointLogLikelihood(b, jll, nil)
		got := parseMap(t, jllText)
		best := 0
		for c, l := range s.Labels {
			worst = max(worst, math.Abs(got[l]-jll[c])/math.Max(1, math.Abs(jll[c])))
			if jll[c] > jll[best] {
				best = c
			}
		}
		if pred != s.Labels[best] {
			t.Fatalf("row %d: SQL predicts %s, Go %s", n, pred, s.Labels[best])
		}
		n++
	}
	if worst > 1e-12 || n != 50000 {
		t.Errorf("%d rows; max relative |Δ b_c| between SQL and Go = %g", n, worst)
	}
}

func parseMap(t *testing.T, s string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, kv := range strings.Split(strings.Trim(s, "{}"), ", ") {
		k, v, _ := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("map %q: %v", s, err)
		}
		out[k] = f
	}
	return out
}

// TestLongLabels: labels longer than DuckDB's 12-byte inline strings, over several vectors and threads.
func TestLongLabels(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 3 = 0 THEN 'a rather long class label α' WHEN i % 3 = 1 THEN 'short' ELSE '' END AS y,
		(i % 3)::DOUBLE + sin(i) * 0.1 AS x FROM range(100000) r(i)`)
	mustExec(t, db, `CALL nb_train('long', 'd', 'y')`)
	got := queryStrings(t, db, `SELECT p, count(*), sum((p = y)::INT), min(cardinality(m)), max(length(map_keys(m)[1]))
		FROM (SELECT y, nb_predict('long', t) AS p, nb_predict_proba('long', t) AS m FROM d t) GROUP BY p ORDER BY p`)
	// Classes are ordered by label: '', 'a rather long class label α', 'short'; map_keys(m)[1] is ''.
	want := [][]string{{"", "33333", "33333", "3", "0"}, {"a rather long class label α", "33334", "33334", "3", "0"}, {"short", "33333", "33333", "3", "0"}}
	for i := range want {
		for j := range 5 {
			if got[i][j] != want[i][j] {
				t.Errorf("row %d: got %v, want %v", i, got[i], want[i])
			}
		}
	}
}

// TestModelChangesAreSeen: retraining, nb_set and a plain UPDATE of nb.models take effect on the next
// query (bound statements keep the model they were bound with).
func TestModelChangesAreSeen(t *testing.T) {
	db := mixedDB(t)
	q := `SELECT nb_proba('m', {'x': 1.0, 'color': 'green', 'n': 1, 'flag': true}, 'yes')`
	p1 := one(t, db, q)
	mustExec(t, db, `UPDATE nb.models SET params = json_merge_patch(params, '{"alpha": 5}') WHERE name = 'm'`)
	p2 := one(t, db, q)
	mustExec(t, db, `CALL nb_set('m', priors := 'uniform')`)
	p3 := one(t, db, q)
	mustExec(t, db, `CALL nb_train('m', 'SELECT * FROM t WHERE x < 2', 'y')`)
	p4 := one(t, db, q)
	if p1 == p2 || p2 == p3 || p3 == p4 {
		t.Errorf("model changes not seen: %v %v %v %v", p1, p2, p3, p4)
	}
}

// TestTableFunctions: nb_models, nb_show, nb_set, nb_export, nb_import and nb_drop from SQL.
func TestTableFunctions(t *testing.T) {
	db := mixedDB(t)
	if got := queryStrings(t, db, `SELECT name, n_rows, classes, features, kinds FROM nb_models()`); fmt.Sprint(got) != "[[m 300 2 4 bernoulli,categorical,gaussian]]" {
		t.Errorf("nb_models: %v", got)
	}
	if got := one(t, db, `SELECT estimate FROM nb_show('m') WHERE parameter = 'prior' AND class = 'yes'`); got != strconv.FormatFloat(100.0/300, 'g', -1, 64) {
		t.Errorf("prior of yes = %v", got)
	}
	if got := queryStrings(t, db, `CALL nb_set('m', alpha := 0.5, variance := 'pooled')`); got[0][1] != "0.5" || got[0][3] != "pooled" {
		t.Errorf("nb_set: %v", got)
	}
	path := filepath.Join(t.TempDir(), "m.json")
	mustExec(t, db, `CALL nb_export('m', `+queries.Literal(path)+`)`)
	mustExec(t, db, `CALL nb_import(`+queries.Literal(path)+`, name := 'm2')`)
	if a, b := one(t, db, `SELECT nb_predict_proba('m', t)::VARCHAR FROM t LIMIT 1`), one(t, db, `SELECT nb_predict_proba('m2', t)::VARCHAR FROM t LIMIT 1`); a != b {
		t.Errorf("imported model scores differently: %v vs %v", a, b)
	}
	mustExec(t, db, `CALL nb_drop('m2')`)
	if err := queryErr(db, `CALL nb_drop('m2')`); err == nil || !strings.Contains(err.Error(), `unknown model "m2"`) {
		t.Errorf("dropping twice: %v", err)
	}
	for _, c := range []struct{ q, want string }{
		{`CALL nb_train('x', 't', 'nope')`, `label column "nope" is not in the source`},
		{`CALL nb_train('x', 't', 'y', alpha := -1)`, `alpha -1`},
		{`CALL nb_train('x', 't', 'y', kind := 'gamma')`, `kind "gamma"`},
		{`CALL nb_train('x', 't', 'y', bogus := 1)`, `bogus`},
		{`CALL nb_train('x', 't', 'y', features := ['x', 'zz'])`, `feature column "zz"`},
	} {
		if err := queryErr(db, c.q); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.q, err, c.want)
		}
	}
}

// TestFileDatabaseSharedAndReopened: a file opened twice in one process shares the functions; closing
// one handle leaves the other working; models persist across reopening.
func TestFileDatabaseSharedAndReopened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.duckdb")
	a, err := udf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, `CREATE TABLE t AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, i % 2 + sin(i) * 0.1 AS x FROM range(100) r(i)`)
	mustExec(t, a, `CALL nb_train('m', 't', 'y')`)
	b, err := udf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got := one(t, b, `SELECT count(*) FROM t WHERE nb_predict('m', t) = y`); got != "100" {
		t.Errorf("after closing the other handle: %v correct", got)
	}
	b.Close()
	c, err := udf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := one(t, c, `SELECT count(*) FROM t WHERE nb_predict('m', t) = y`); got != "100" {
		t.Errorf("after reopening: %v correct", got)
	}
}

// FuzzStructBinding: any field name (quotes, spaces, unicode) binds to the feature of the same name.
func FuzzStructBinding(f *testing.F) {
	for _, s := range []string{"x", `a "b"`, "ünï code", "(p)", "a.b", "select", "'", " lead"} {
		f.Add(s)
	}
	db, err := udf.Open("")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(3, 4))
	f.Fuzz(func(t *testing.T, name string) {
		if queries.ValidIdent(name) != nil || strings.EqualFold(name, "y") || !isPrintable(name) {
			return
		}
		tbl := fmt.Sprintf("t%d", r.Uint32())
		if _, err := db.Exec(`CREATE TABLE ` + tbl + ` AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, (i % 2)::DOUBLE AS ` +
			queries.Ident(name) + ` FROM range(10) r(i)`); err != nil {
			return // DuckDB refuses the name
		}
		defer db.Exec(`DROP TABLE ` + tbl)
		if _, err := db.Exec(`CALL nb_train('fz', ` + queries.Literal(tbl) + `, 'y')`); err != nil {
			t.Fatalf("train with column %q: %v", name, err)
		}
		var got string
		q := `SELECT nb_predict('fz', struct_pack(` + queries.Ident(name) + ` := 1.0))`
		if err := db.QueryRow(q).Scan(&got); err != nil || got != "b" {
			t.Fatalf("column %q: %v %v", name, got, err)
		}
	})
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}

// TestProbaPerRowClass: nb_proba's class may be a VARCHAR column; it equals the constant form, and an
// unknown or NULL class gives NULL.
func TestProbaPerRowClass(t *testing.T) {
	db := mixedDB(t)
	got := queryStrings(t, db, `SELECT count(*) FILTER (WHERE nb_proba('m', t, y) = CASE y WHEN 'yes' THEN nb_proba('m', t, 'yes') ELSE nb_proba('m', t, 'no') END),
		count(*) FROM t`)
	if got[0][0] != got[0][1] || got[0][1] != "300" {
		t.Errorf("per-row class: %v of 300 equal the constant form", got[0])
	}
	got = queryStrings(t, db, `SELECT nb_proba('m', {'x': 1.0, 'color': 'red', 'n': 1, 'flag': true}, c) FROM (VALUES ('maybe'), (NULL)) v(c)`)
	if got[0][0] != "NULL" || got[1][0] != "NULL" {
		t.Errorf("unknown and NULL classes: %v, want NULL", got)
	}
}

// TestProbaAndEvidenceChunks: nb_proba equals nb_predict_proba's entry for its class bit for bit, and
// nb_log_evidence log Σ_c exp(b_c) of nb_joint_log_likelihood within 1e-13, on 5,000 rows (whole vectors, so the vector kernels
// run: both are computed chunk-wide), for two and for four classes, with rows where a class's score is far
// below the others (its posterior underflows) among them.
func TestProbaAndEvidenceChunks(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT 'c' || (i % 4) AS y, 'd' || (i % 2) AS z, (i % 4) * 2.0 + sin(i) AS x,
		CASE WHEN i % 97 = 0 THEN (i % 4) * 400.0 ELSE cos(i) END AS w FROM range(5000) r(i)`)
	mustExec(t, db, `CREATE VIEW t4 AS FROM t SELECT * EXCLUDE (z)`)
	mustExec(t, db, `CREATE VIEW t2 AS FROM t SELECT * EXCLUDE (y)`)
	mustExec(t, db, `CALL nb_train('four', 't4', 'y')`)
	mustExec(t, db, `CALL nb_train('two', 't2', 'z')`)
	for _, m := range []struct{ name, table, classes string }{{"four", "t4", "c0,c1,c2,c3"}, {"two", "t2", "d0,d1"}} {
		for _, c := range strings.Split(m.classes, ",") {
			q := fmt.Sprintf(`SELECT count(*) FILTER (WHERE nb_proba('%[1]s', t, '%[2]s') IS NOT DISTINCT FROM nb_predict_proba('%[1]s', t)['%[2]s']), count(*) FROM %[3]s t`, m.name, c, m.table)
			if got := queryStrings(t, db, q); got[0][0] != got[0][1] {
				t.Errorf("%s class %s: nb_proba equals nb_predict_proba's entry in %s of %s rows", m.name, c, got[0][0], got[0][1])
			}
		}
		// The reference in Go: LogEvidence over each row's joint log-likelihoods.
		rows := queryStrings(t, db, fmt.Sprintf(`SELECT map_values(nb_joint_log_likelihood('%[1]s', t))::VARCHAR, nb_log_evidence('%[1]s', t) FROM %[2]s t`, m.name, m.table))
		if len(rows) != 5000 {
			t.Fatalf("%s: %d rows scored, want 5000", m.name, len(rows))
		}
		for i, r := range rows {
			var b []float64
			for _, f := range strings.Split(strings.Trim(r[0], "[]"), ", ") {
				v, err := strconv.ParseFloat(f, 64)
				if err != nil {
					t.Fatal(err)
				}
				b = append(b, v)
			}
			want := kernel.LogEvidence(b, 1, len(b), 0)
			// Within rounding, not bit for bit: the scores printed include the row's workspace shift, which
			// nb_log_evidence adds after the log-sum-exp (TestPosteriorsMatchRows checks LogEvidences' bits).
			if got, err := strconv.ParseFloat(r[1], 64); err != nil || math.Abs(got-want) > 1e-13*max(1, math.Abs(want)) {
				t.Fatalf("%s row %d: nb_log_evidence %s, LogEvidence of %v = %v", m.name, i, r[1], b, want)
			}
		}
	}
}

// TestAllNullCategoricalFeature: a categorical feature with no training value (NULL in every row, as an
// empty CSV column reads; or a group whose rows all lack it) adds nothing: its posteriors are those of the
// model without it, for a NULL and for any value, and the SQL export of the model runs (its CASE had no WHEN).
func TestAllNullCategoricalFeature(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('a', 1.0, NULL::VARCHAR), ('a', 1.5, NULL), ('b', 3.0, NULL),
		('b', 3.5, NULL), ('a', 0.8, NULL), ('b', 2.9, NULL)) v(y, x, notes)`)
	mustExec(t, db, `CALL nb_train('with', 'd', 'y')`)
	mustExec(t, db, `CALL nb_train('without', 'SELECT y, x FROM d', 'y')`)
	got := queryStrings(t, db, `SELECT nb_predict_proba('with', {'x': x, 'notes': notes})::VARCHAR, nb_predict_proba('without', {'x': x})::VARCHAR,
		nb_predict('with', {'x': x, 'notes': notes}) FROM (VALUES (1.0, 'vip'), (3.2, NULL), (2.2, '')) v(x, notes)`)
	if len(got) != 3 {
		t.Fatalf("%d rows scored, want 3", len(got))
	}
	for _, row := range got {
		if row[0] != row[1] || strings.Contains(row[0], "nan") {
			t.Errorf("with the all-NULL feature %s, without it %s (prediction %s)", row[0], row[1], row[2])
		}
	}
	mustExec(t, db, exportSQL(t, mustScorer(t, db, "with"), "duckdb"))
}

// TestEvalEmptyClassName: a class named "" has its per-class metrics under its name (an empty class), apart from
// the overall ones (class NULL): the metrics told them apart by an empty name.
func TestEvalEmptyClassName(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 3 = 0 THEN '' WHEN i % 3 = 1 THEN 'NULL' ELSE ' ' END AS y,
		(i % 3)::DOUBLE + i / 100 AS x FROM range(30) r(i)`)
	mustExec(t, db, `CALL nb_train('emp', 'd', 'y')`)
	got := queryStrings(t, db, `SELECT coalesce(class, '<overall>'), count(*) FILTER (WHERE metric = 'support'), count(*)
		FROM nb_eval('emp', 'd') GROUP BY ALL ORDER BY 1`)
	want := [][]string{{"", "1"}, {" ", "1"}, {"<overall>", "0"}, {"NULL", "1"}}
	if len(got) != len(want) {
		t.Fatalf("classes of nb_eval's rows: %q, want those of %q", got, want)
	}
	for i, w := range want {
		if got[i][0] != w[0] || got[i][1] != w[1] {
			t.Errorf("row %d: %q, want class %q with support %s", i, got[i], w[0], w[1])
		}
	}
}

// TestNumberCategoriesByValue: a number category matches its training value by value, not by text, in every
// path (SQL function, Scorer.BatchOf, the DuckDB export): a BIGINT-trained category given 1.0 (DECIMAL or
// DOUBLE), a DOUBLE- or DECIMAL-trained one given the integer 1, a TINYINT group given 1.0. Before, the text
// "1.0" was not "1": the value was unseen (and the group scored by the pooled model).
func TestNumberCategoriesByValue(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 3)::BIGINT AS a, (i % 4)::DOUBLE AS b, ((i % 5) / 2)::DECIMAL(4, 1) AS c,
		(i % 2)::TINYINT AS g, CASE WHEN i % 3 = 0 OR i % 7 = 0 THEN 'x' ELSE 'y' END AS y, i / 10 AS z FROM range(200) r(i)`)
	mustExec(t, db, `CALL nb_train('num', 'SELECT a, b, c, y FROM d', 'y', feature_kinds := 'a=categorical,b=categorical,c=categorical')`)
	mustExec(t, db, `CALL nb_train('grp', 'SELECT a, g, y, z FROM d', 'y', feature_kinds := 'a=categorical', by := ['g'])`)
	// Each row: the argument as trained, then the same values in other types; the last row is unseen.
	got := queryStrings(t, db, `SELECT nb_predict_proba('num', {'a': 1::BIGINT, 'b': 1.0::DOUBLE, 'c': 1.0::DECIMAL(4, 1)})::VARCHAR,
		nb_predict_proba('num', {'a': 1.0::DECIMAL(3, 1), 'b': 1::BIGINT, 'c': 1::INTEGER})::VARCHAR,
		nb_predict_proba('num', {'a': 1.0::DOUBLE, 'b': 1.00::DECIMAL(20, 2), 'c': 1::HUGEINT})::VARCHAR,
		nb_predict_proba('num', {'a': 1::UTINYINT, 'b': 1::SMALLINT, 'c': 1.0::FLOAT})::VARCHAR,
		nb_predict_proba('grp', {'a': 2::BIGINT, 'g': 1::TINYINT, 'z': 3.5})::VARCHAR,
		nb_predict_proba('grp', {'a': 2.0, 'g': 1.0, 'z': 3.5})::VARCHAR,
		nb_predict_proba('num', {'a': 1.5, 'b': 7::BIGINT, 'c': 0.25})::VARCHAR,
		nb_predict_proba('num', {'a': 7::BIGINT, 'b': 7.0::DOUBLE, 'c': 7.0::DECIMAL(4, 1)})::VARCHAR`)[0]
	for i, g := range got[1:4] {
		if g != got[0] {
			t.Errorf("num, arguments %d: %s; as trained: %s", i+2, g, got[0])
		}
	}
	if got[5] != got[4] {
		t.Errorf("grp, group 1.0: %s; as trained: %s", got[5], got[4])
	}
	if got[6] != got[7] || got[6] == got[0] {
		t.Errorf("num, values not in training (1.5, 7, 0.25): %s; unseen: %s; seen: %s", got[6], got[7], got[0])
	}

	// The row reference path: Go integers match "1.0", floats match "1".
	s := mustScorer(t, db, "num")
	var want map[string]float64
	for _, row := range []map[string]any{{"a": int64(1), "b": 1.0, "c": 1.0}, {"a": 1.0, "b": int32(1), "c": uint8(1)}} {
		p, _, err := s.ScoreRow(row)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = p
		} else if p["x"] != want["x"] || p["y"] != want["y"] {
			t.Errorf("ScoreRow %v: %v, want %v", row, p, want)
		}
	}
	if p := parseF(t, strings.TrimSuffix(strings.SplitN(got[0], "y=", 2)[1], "}")); math.Abs(p-want["y"]) > 1e-15 {
		t.Errorf("ScoreRow P(y) %v, nb_predict_proba %v", want["y"], p)
	}

	// The DuckDB export compares numbers too.
	mustExec(t, db, exportSQL(t, s, "duckdb"))
	exp := queryStrings(t, db, `SELECT num_predict_proba({'a': 1::BIGINT, 'b': 1.0::DOUBLE, 'c': 1.0::DECIMAL(4, 1)})['y'],
		num_predict_proba({'a': 1.0::DECIMAL(3, 1), 'b': 1::BIGINT, 'c': 1::INTEGER})['y'],
		num_predict_proba({'a': 7, 'b': 7, 'c': 7})['y'], num_predict_proba({'a': 1.5, 'b': 7::BIGINT, 'c': 0.25})['y'],
		nb_predict_proba('num', {'a': 1::BIGINT, 'b': 1.0::DOUBLE, 'c': 1.0::DECIMAL(4, 1)})['y']`)[0]
	if exp[0] != exp[1] || exp[2] != exp[3] || exp[0] == exp[2] {
		t.Errorf("export, P(y): as trained %s, other types %s, unseen %s and %s", exp[0], exp[1], exp[2], exp[3])
	}
	if a, b := parseF(t, exp[0]), parseF(t, exp[4]); math.Abs(a-b) > 1e-12 {
		t.Errorf("export P(y) %v, nb_predict_proba %v", a, b)
	}
}

func parseF(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestFloatCategory: a FLOAT-trained category matches its own training values (it matched none: the values
// were keyed as the DOUBLE their text reads as, 0.1, and the argument read as float32 0.1 widened,
// 0.10000000149), in the SQL functions, ScoreRow and the DuckDB export alike; a DOUBLE argument matches
// rounded to float32.
func TestFloatCategory(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE f AS SELECT [0.1, 0.2][i % 2 + 1]::FLOAT AS g,
		CASE WHEN i % 3 = 0 THEN 'a' ELSE ['a', 'b'][i % 2 + 1] END AS y FROM range(60) r(i)`)
	mustExec(t, db, `CALL nb_train('cg', 'f', 'y', feature_kinds := 'g=categorical')`)
	// Seed 001 (categorical NB): P(a | g) ∝ P(a) θ_ga with θ = (n_gc + 1) / (n_c + 2). Class a: 40 rows (30 with
	// g = 0.1), class b: 20 rows (all g = 0.2).
	want := map[string]float64{"0.1": 40.0 / 60 * 31 / 42 / (40.0/60*31/42 + 20.0/60*1/22),
		"0.2": 40.0 / 60 * 11 / 42 / (40.0/60*11/42 + 20.0/60*21/22)}
	s := mustScorer(t, db, "cg")
	mustExec(t, db, exportSQL(t, s, "duckdb"))
	rows := queryStrings(t, db, `SELECT g::VARCHAR, any_value(nb_proba('cg', {'g': g}, 'a')), any_value(nb_proba('cg', {'g': g::DOUBLE}, 'a')),
		any_value(cg_predict_proba({'g': g})['a']), any_value(cg_predict_proba({'g': g::DOUBLE})['a']) FROM f GROUP BY g`)
	if len(rows) != 2 {
		t.Fatalf("%d values of g, want 2: %v", len(rows), rows)
	}
	for _, row := range rows {
		for k, got := range row[1:] {
			if p := parseF(t, got); math.Abs(p-want[row[0]]) > 1e-12 {
				t.Errorf("g = %s, path %d: P(a) %v, want %v", row[0], k, p, want[row[0]])
			}
		}
	}
	p, _, err := s.ScoreRow(map[string]any{"g": float32(0.1)})
	if err != nil || math.Abs(p["a"]-want["0.1"]) > 1e-12 {
		t.Errorf("ScoreRow(float32 0.1): %v, %v; want P(a) %v", p, err, want["0.1"])
	}
}

// TestScoreRowChecks: ScoreRow refuses what the SQL functions refuse or score NULL — a value of another class
// than trained (1 for a BOOLEAN category, true or "2" for an INTEGER one) and, for models that need complete
// rows (lda, logistic), a missing value (ErrIncompleteRow; it returned NaN posteriors and a label).
func TestScoreRowChecks(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 7)::DOUBLE AS x, (i % 4 = 0) AS b, (i % 3)::INTEGER AS n, ['a', 'b'][i % 2 + 1] AS y FROM range(50) r(i)`)
	mustExec(t, db, `CALL nb_train('cat', 'SELECT b, n, y FROM d', 'y', feature_kinds := 'n=categorical')`)
	mustExec(t, db, `CALL nb_train('lda', 'SELECT x, y FROM d', 'y', kind := 'lda')`)
	mustExec(t, db, `CALL nb_train('lr', 'SELECT x, b, y FROM d', 'y', kind := 'logistic')`)
	cat := mustScorer(t, db, "cat")
	for _, c := range []struct {
		row  map[string]any
		want string
	}{
		{map[string]any{"b": 1, "n": 2}, `feature "b"`},
		{map[string]any{"b": "yes", "n": 2}, "give a bool"},
		{map[string]any{"b": true, "n": true}, "give a number"},
		{map[string]any{"b": true, "n": "two"}, "give a number"},
	} {
		if _, _, err := cat.ScoreRow(c.row); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cat %v: %v, want an error saying %q", c.row, err, c.want)
		}
	}
	// A value of the class in its text form (as a group key is) scores as the value.
	want, _, err := cat.ScoreRow(map[string]any{"b": true, "n": int64(2)})
	if err != nil {
		t.Errorf("cat with the trained classes of values: %v", err)
	}
	for _, row := range []map[string]any{{"b": "true", "n": "2"}, {"b": true, "n": "2.0"}, {"b": true, "n": 2.0}} {
		if got, _, err := cat.ScoreRow(row); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("cat %v: %v (%v), want %v", row, got, err, want)
		}
	}
	if err := queryErr(db, `SELECT nb_predict('cat', {'b': 1, 'n': 2})`); err == nil || !strings.Contains(err.Error(), "give a BOOLEAN") {
		t.Errorf("SQL, 1 for a BOOLEAN category: %v", err)
	}
	for _, c := range []struct {
		model string
		row   map[string]any
	}{{"lda", map[string]any{"x": nil}}, {"lda", map[string]any{"x": math.NaN()}}, {"lr", map[string]any{"x": 1.0, "b": nil}}} {
		p, l, err := mustScorer(t, db, c.model).ScoreRow(c.row)
		if !errors.Is(err, sqlnb.ErrIncompleteRow) || p != nil || l != "" {
			t.Errorf("%s %v: %v %q %v, want ErrIncompleteRow", c.model, c.row, p, l, err)
		}
	}
	if got := queryStrings(t, db, `SELECT nb_predict('lda', {'x': NULL::DOUBLE}) IS NULL`)[0][0]; got != "true" {
		t.Errorf("SQL nb_predict of an incomplete row is NULL: %s", got)
	}
}

// TestNumberCategoryEdges: number categories match as SQL's = compares the two types, in the SQL functions
// and the DuckDB export alike — a FLOAT argument on a DECIMAL-trained category (as FLOAT), UHUGEINT
// arguments, values beyond int64 (UBIGINT's maximum, a HUGEINT of 1e20, a DECIMAL(38,10) whose scaled value
// overflows int64), and an integer argument on a FLOAT- or DOUBLE-trained category beyond the float's
// precision (as that float). An argument that SQL's = finds equal to class a's training value must score as
// that value does (nb_proba of the column itself); the export must agree with nb_proba to 1e-12.
func TestNumberCategoryEdges(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT * FROM (VALUES
		('a', 0.10::DECIMAL(5, 2), 18446744073709551615::UBIGINT, 1000000000.5::DECIMAL(38, 10), 100000000000000000000::HUGEINT, 16777217::FLOAT, 9007199254740993::DOUBLE, 1::INTEGER),
		('a', 0.10, 18446744073709551615, 1000000000.5, 100000000000000000000, 16777217, 9007199254740993, 1),
		('b', 0.20, 2, 2.5, 2, 1, 1, 2), ('b', 0.30, 3, 3.5, 3, 2, 2, 3)) v(y, d, u, w, h, r, f, i)`)
	for _, c := range []struct{ col, arg string }{
		{"d", "0.1::FLOAT"}, {"d", "0.1::DOUBLE"}, {"d", "0.1::DECIMAL(18, 4)"},
		{"u", "18446744073709551615::UHUGEINT"}, {"u", "18446744073709551615::HUGEINT"}, {"u", "18446744073709551615::DECIMAL(38, 2)"},
		{"w", "1000000000.5::DECIMAL(38, 10)"}, {"w", "1000000000.5::DECIMAL(38, 20)"}, {"w", "1000000000.5::DOUBLE"},
		{"h", "100000000000000000000::UHUGEINT"}, {"h", "100000000000000000000::DECIMAL(38, 0)"},
		{"r", "16777217::INTEGER"}, {"r", "16777216::BIGINT"}, {"f", "9007199254740993::BIGINT"}, {"f", "9007199254740992::HUGEINT"},
		{"i", "1::UHUGEINT"}, {"i", "1::UBIGINT"}, {"i", "1.0::FLOAT"},
	} {
		model := "edge_" + c.col
		if len(queryStrings(t, db, `SELECT 1 FROM nb_models() WHERE name = ?`, model)) == 0 {
			mustExec(t, db, fmt.Sprintf(`CALL nb_train('%s', 'SELECT y, %s FROM t', 'y', kind := 'categorical')`, model, c.col))
			mustExec(t, db, exportSQL(t, mustScorer(t, db, model), "duckdb"))
		}
		row := queryStrings(t, db, fmt.Sprintf(`SELECT nb_proba('%[1]s', {'%[2]s': %[3]s}, 'a'), %[1]s_predict_proba({'%[2]s': %[3]s})['a'],
			(SELECT nb_proba('%[1]s', {'%[2]s': %[2]s}, 'a') FROM t LIMIT 1), CAST(%[3]s AS VARCHAR) = (SELECT CAST(%[2]s AS VARCHAR) FROM t LIMIT 1) OR %[3]s = (SELECT %[2]s FROM t LIMIT 1)`,
			model, c.col, c.arg))[0]
		udf, exp, seen := parseF(t, row[0]), parseF(t, row[1]), parseF(t, row[2])
		if math.Abs(udf-exp) > 1e-12 {
			t.Errorf("%s given %s: nb_proba %v, export %v", c.col, c.arg, udf, exp)
		}
		if sqlEq := row[3] == "true"; sqlEq != (math.Abs(udf-seen) < 1e-12) {
			t.Errorf("%s given %s: P(a) %v, the training value's %v, SQL = says %v", c.col, c.arg, udf, seen, sqlEq)
		}
	}
	// ScoreRow: Go values of the same types (float32 is FLOAT, uint64 beyond int64, an integer's text).
	for _, c := range []struct {
		col string
		v   any
	}{{"d", float32(0.1)}, {"d", 0.1}, {"u", uint64(math.MaxUint64)}, {"u", "18446744073709551615"}, {"h", "100000000000000000000"},
		{"r", int64(16777217)}, {"f", int64(9007199254740993)}, {"i", uint8(1)}, {"i", float32(1)}} {
		model := "edge_" + c.col
		p, _, err := mustScorer(t, db, model).ScoreRow(map[string]any{c.col: c.v})
		seen := parseF(t, queryStrings(t, db, fmt.Sprintf(`SELECT nb_proba('%s', {'%s': %s}, 'a') FROM t LIMIT 1`, model, c.col, c.col))[0][0])
		if err != nil || math.Abs(p["a"]-seen) > 1e-12 {
			t.Errorf("ScoreRow %s = %#v: P(a) %v (%v), the training value's %v", c.col, c.v, p["a"], err, seen)
		}
	}
}

// TestNumberCategoryCasts: for a DOUBLE- and a FLOAT-trained category of 300 random values, DECIMAL
// arguments of several widths and scales, FLOAT, BIGINT and HUGEINT arguments match exactly the training
// values DuckDB's own casts make them equal to: nb_predict_proba agrees with the exported macros (which
// compare in SQL) on every row. DuckDB's DECIMAL → DOUBLE cast is not always the nearest double
// (TryCastDecimalToFloatingPoint), and a FLOAT argument widens to a DOUBLE-trained input.
func TestNumberCategoryCasts(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT ['a', 'b', 'c'][(hash(i) % 3)::INTEGER + 1] AS y, (random() * 10)::DOUBLE AS x, (random() * 10)::FLOAT AS f
		FROM range(300) r(i)`)
	mustExec(t, db, `SELECT setseed(0.5)`)
	mustExec(t, db, `CALL nb_train('cc', 't', 'y', kind := 'categorical')`)
	mustExec(t, db, exportSQL(t, mustScorer(t, db, "cc"), "duckdb"))
	for _, cast := range []string{"DECIMAL(38, 18)", "DECIMAL(38, 30)", "DECIMAL(18, 15)", "DECIMAL(9, 6)", "DECIMAL(38, 1)", "FLOAT", "DOUBLE", "BIGINT", "HUGEINT"} {
		got := queryStrings(t, db, fmt.Sprintf(`SELECT count(*), count(*) FILTER (WHERE abs(nb_proba('cc', {'x': x::%[1]s, 'f': f::%[1]s}, 'a')
			- cc_predict_proba({'x': x::%[1]s, 'f': f::%[1]s})['a']) > 1e-12) FROM t`, cast))[0]
		if got[1] != "0" {
			t.Errorf("arguments cast to %s: %s of %s rows differ from the export", cast, got[1], got[0])
		}
	}
}

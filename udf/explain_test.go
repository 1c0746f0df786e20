package udf_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// TestExplainSumsToLogOdds: nb_explain's contributions plus the prior term equal the log-odds from
// nb_joint_log_likelihood (two classes: class 2 against class 1; more: predicted against runner-up), to
// 1e-12, on a mixed model with missing and unseen values; nb_log_evidence is log Σ exp(b_c).
func TestExplainSumsToLogOdds(t *testing.T) {
	for _, k := range []int{2, 3} {
		db := mustOpenDB(t)
		mustExec(t, db, `CREATE TABLE d AS SELECT 'c' || (i % `+strconv.Itoa(k)+`) AS y,
			CASE WHEN i % 13 = 0 THEN NULL ELSE sin(i) + (i % `+strconv.Itoa(k)+`) END AS x,
			CASE WHEN i % 7 = 0 THEN NULL ELSE ['u', 'v', 'w'][1 + (i * i) % 3] END AS cat,
			i % 5 = 0 AS flag FROM range(600) r(i)`)
		mustExec(t, db, `CALL nb_train('e', 'd', 'y', feature_kinds := 'flag=bernoulli')`)
		rows := queryStrings(t, db, `SELECT
			list_sum([e.contribution FOR e IN nb_explain('e', t)]),
			nb_joint_log_likelihood('e', t)::VARCHAR, nb_predict('e', t), nb_log_evidence('e', t),
			len(nb_explain('e', t)), nb_explain('e', t)[1].feature, nb_explain('e', t)[4].feature
			FROM (SELECT * REPLACE (CASE WHEN x > 1.5 THEN 'zz' ELSE cat END AS cat) FROM d) t`)
		if len(rows) != 600 {
			t.Fatalf("%d classes: %d rows scored, want 600", k, len(rows))
		}
		for _, r := range rows {
			sum, _ := strconv.ParseFloat(r[0], 64)
			jll := parseMap(t, r[1])
			var want float64
			if k == 2 {
				want = jll["c1"] - jll["c0"]
			} else {
				pred, best2 := r[2], math.Inf(-1)
				for c, v := range jll {
					if c != pred {
						best2 = math.Max(best2, v)
					}
				}
				want = jll[pred] - best2
			}
			if math.Abs(sum-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("k=%d: contributions sum to %v, log-odds %v (%v)", k, sum, want, r)
			}
			ev, _ := strconv.ParseFloat(r[3], 64)
			mx, s := math.Inf(-1), 0.0
			for _, v := range jll {
				mx = math.Max(mx, v)
			}
			for _, v := range jll {
				s += math.Exp(v - mx)
			}
			if math.Abs(ev-(mx+math.Log(s))) > 1e-12*math.Max(1, math.Abs(ev)) {
				t.Fatalf("log evidence %v, want %v", ev, mx+math.Log(s))
			}
			if r[4] != "4" || r[5] == "NULL" || r[6] != "NULL" {
				t.Fatalf("explain has %s entries, first feature %s, last %s (want the prior, NULL)", r[4], r[5], r[6])
			}
		}
	}
}

// TestExplainOrder: entries are sorted by |contribution|, the prior last, missing values NULL.
func TestExplainOrder(t *testing.T) {
	db := mixedDB(t)
	got := queryStrings(t, db, `SELECT e.feature, e.value, e.contribution FROM
		(SELECT unnest(nb_explain('m', {'x': 0.1, 'color': NULL, 'n': 3, 'flag': true})) AS e)`)
	if len(got) != 5 || got[4][0] != "NULL" {
		t.Fatalf("explain rows %v", got)
	}
	prev := math.Inf(1)
	for _, r := range got[:4] {
		c, _ := strconv.ParseFloat(r[2], 64)
		if math.Abs(c) > prev {
			t.Errorf("not sorted by magnitude: %v", got)
		}
		prev = math.Abs(c)
		if r[0] == "color" && (r[1] != "NULL" || c != 0) {
			t.Errorf("missing color: %v", r)
		}
	}
}

// TestExplainVersus: every element names the classes compared (two classes by default: the second against
// the first; more: the predicted class against the runner-up); a third argument explains the predicted
// class against the given one (a constant, a column, or after positional features), and the contributions
// add up to that log-odds; an unknown constant class is an error naming the classes, an unknown or NULL
// class in a column gives NULL.
func TestExplainVersus(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT 'c' || (i % 3) AS y, sin(i) + (i % 3) AS x,
		['u', 'v', 'w'][1 + (i * i) % 3] AS cat FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('three', 'd', 'y')`)
	mustExec(t, db, `CALL nb_train('two', 'SELECT * FROM d WHERE y <> ''c2''', 'y')`)
	got := queryStrings(t, db, `SELECT DISTINCT e.class, e.versus FROM (SELECT unnest(nb_explain('two', t)) AS e FROM d t)`)
	if len(got) != 1 || got[0][0] != "c1" || got[0][1] != "c0" {
		t.Errorf("two classes: compared %v, want c1 against c0 in every element", got)
	}
	for _, q := range []string{
		`nb_explain('three', t, 'c0')`, `nb_explain('three', t, y)`, `nb_explain('three', x, cat, 'c2')`,
		`nb_explain('three', t)`, `nb_explain('two', t, 'c1')`,
	} {
		rows := queryStrings(t, db, `SELECT list_sum([e.contribution FOR e IN `+q+`]), `+q+`[1].class, `+q+`[1].versus,
			nb_joint_log_likelihood('`+strings.Split(q, "'")[1]+`', t)::VARCHAR, nb_predict('`+strings.Split(q, "'")[1]+`', t),
			len(list_distinct([e.class || '/' || e.versus FOR e IN `+q+`])), y
			FROM d t`)
		if len(rows) != 300 {
			t.Fatalf("%s: %d rows scored, want 300", q, len(rows))
		}
		for _, r := range rows {
			jll := parseMap(t, r[3])
			class, versus := r[1], r[2]
			if class != r[4] {
				t.Fatalf("%s: explains %s, nb_predict says %s", q, class, r[4])
			}
			switch {
			case strings.Contains(q, "'c0'") && versus != "c0", strings.Contains(q, "'c2'") && versus != "c2",
				strings.Contains(q, ", y)") && versus != r[6], strings.Contains(q, "'c1'") && versus != "c1":
				t.Fatalf("%s: against %s (row label %s)", q, versus, r[6])
			}
			sum, _ := strconv.ParseFloat(r[0], 64)
			if want := jll[class] - jll[versus]; math.Abs(sum-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Fatalf("%s: contributions of %s against %s sum to %v, log-odds %v", q, class, versus, sum, want)
			}
			if r[5] != "1" {
				t.Fatalf("%s: %s pairs of classes in one row", q, r[5])
			}
		}
	}
	if err := queryErr(db, `SELECT nb_explain('three', t, 'c9') FROM d t`); err == nil || !strings.Contains(err.Error(), `has no class "c9" (classes: c0, c1, c2)`) {
		t.Errorf("unknown class: %v", err)
	}
	if got := one(t, db, `SELECT count(*) FILTER (WHERE nb_explain('three', t, CASE WHEN x > 1 THEN y WHEN x > 0 THEN 'c9' END) IS NULL)
		= count(*) FILTER (WHERE x <= 1) FROM d t`); got != "true" {
		t.Errorf("rows whose class is NULL or unknown are not exactly the NULL explanations")
	}
}

// Rows without an explanation (a NULL row, a missing value an lda model requires) take no elements of the
// result list: every element DuckDB may copy is written (an unwritten one crashed the cast to text).
func TestExplainNullRowsLeaveNoHoles(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS y, random() + i % 3 AS x1,
		CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN 'nan'::DOUBLE ELSE random() END AS x2 FROM range(5000) r(i)`)
	mustExec(t, db, "CALL nb_train('m', 'd', 'y', kind := 'lda')")
	got := queryStrings(t, db, `SELECT count(*) FILTER (WHERE e IS NULL), count(*), sum(length(e)) > 0 FROM (
		SELECT coalesce(nb_explain('m', t)::VARCHAR, NULL) AS e FROM d t)`)
	if got[0][0] == "0" || got[0][1] != "5000" || got[0][2] != "true" {
		t.Errorf("NULL explanations, rows, text: %v", got[0])
	}
}

// TestInformativeTop: nb_informative lists, per class, the top values by log-likelihood ratio in decreasing
// order — 10 by default, top := N otherwise, none for 0 — the same rows as the library's MostInformative;
// a negative top is refused naming the option (it was an internal slice-bounds error).
func TestInformativeTop(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT 'c' || (i % 3) AS y, ['u', 'v', 'w', 'x'][1 + (i * i) % 4] AS cat,
		sin(i) + (i % 3) AS x, i % 5 = 0 AS flag FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('e', 'd', 'y')`)
	s := mustScorer(t, db, "e")
	for _, top := range []string{"", ", top := 0", ", top := 2", ", top := 1000"} {
		rows := queryStrings(t, db, `SELECT class, feature, coalesce(value, ''), llr FROM nb_informative('e'`+top+`)`)
		n := 10
		if top != "" {
			n, _ = strconv.Atoi(strings.TrimPrefix(top, ", top := "))
		}
		want := sqlnb.MostInformative(s, n)
		if len(rows) != len(want) {
			t.Fatalf("top %q: %d rows, want %d", top, len(rows), len(want))
		}
		for i, r := range rows {
			llr, _ := strconv.ParseFloat(r[3], 64)
			w := want[i]
			if r[0] != w.Class || r[1] != w.Feature || r[2] != w.Value || llr != w.LLR {
				t.Errorf("top %q row %d: %v, want %+v", top, i, r, w)
			}
			if i > 0 && r[0] == rows[i-1][0] {
				if prev, _ := strconv.ParseFloat(rows[i-1][3], 64); prev < llr {
					t.Errorf("top %q row %d: not in decreasing order (%v after %v)", top, i, llr, prev)
				}
			}
		}
	}
	_, err := db.Exec(`SELECT * FROM nb_informative('e', top := -1)`)
	if err == nil || !strings.Contains(err.Error(), "top := -1") || strings.Contains(err.Error(), "internal") {
		t.Errorf("top := -1: %v", err)
	}
}

// TestProbaClassArgument: nb_proba's class is text; a number there — the class written as 1, or the class left
// out so that the last feature took its place — says to write it as a string and lists the classes (it said
// "argument 3 is not a constant string"); an unknown constant class is an error, an unknown class given per
// row (a column) scores NULL, as README says.
func TestProbaClassArgument(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE g AS SELECT (i % 2)::INT AS y, (i % 2) * 10.0 + (i % 5) * 0.1 AS a, (i % 3) * 1.0 AS b FROM range(100) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 'g', 'y')`)
	for _, q := range []string{`SELECT nb_proba('m', 1.0, 0.0)`, `SELECT nb_proba('m', {'a': 1.0, 'b': 0.0}, 1)`} {
		_, err := db.Exec(q)
		if err == nil || !strings.Contains(err.Error(), "argument 3, the class, must be text: write the class as a string, e.g. '0' (classes: 0, 1)") {
			t.Errorf("%s: %v", q, err)
		}
	}
	if _, err := db.Exec(`SELECT nb_proba('m', {'a': 1.0, 'b': 0.0}, 'no such class')`); err == nil || !strings.Contains(err.Error(), `has no class "no such class"`) {
		t.Errorf("unknown constant class: %v", err)
	}
	rows := queryStrings(t, db, `SELECT coalesce(nb_proba('m', {'a': 1.0, 'b': 0.0}, c)::VARCHAR, 'NULL') FROM (VALUES ('1'), ('no such class')) v(c)`)
	if rows[0][0] == "NULL" || rows[1][0] != "NULL" {
		t.Errorf("per-row classes: %v", rows)
	}
}

// TestBooleanFeatureHint: text given for a BOOLEAN-trained feature names the column in its advice (it said
// "e.g. x = 1 or x::BOOLEAN", x standing for no column of the model).
func TestBooleanFeatureHint(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE b AS SELECT (i % 2)::VARCHAR AS y, (i % 4 < 2) AS flag FROM range(40) r(i)`)
	mustExec(t, db, `CALL nb_train('mb', 'b', 'y')`)
	_, err := db.Exec(`SELECT nb_predict('mb', {'flag': 'yes'})`)
	if err == nil || !strings.Contains(err.Error(), `feature "flag"`) || !strings.Contains(err.Error(), `e.g. "flag" = 'yes' or "flag"::BOOLEAN`) {
		t.Errorf("%v", err)
	}
}

// TestNULInStrings: a string argument holding a NUL character is refused (DuckDB's C API hands it over cut at
// the NUL: nb_predict('m' || chr(0) || 'x', t) scored model m, nb_train('b' || chr(0) || 'c', …) stored model
// b, nb_proba(…, 'p' || chr(0)) gave class p's probability); names and quotes without one still work.
func TestNULInStrings(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE g AS SELECT (i % 2)::VARCHAR AS y, (i % 2) * 10.0 + (i % 5) * 0.1 AS a FROM range(100) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 'g', 'y')`)
	mustExec(t, db, `CALL nb_train('it''s', 'g', 'y')`)
	for q, want := range map[string]string{
		`SELECT nb_predict('m' || chr(0) || 'x', {'a': 1.0})`:       `the model name: argument 1 holds a NUL character (chr(0)) after "m"`,
		`SELECT nb_proba('m', {'a': 1.0}, '1' || chr(0))`:           `model "m": the class: argument 3 holds a NUL character (chr(0)) after "1"`,
		`FROM nb_train('b' || chr(0) || 'c', 'g', 'y')`:             `nb_train: model holds a NUL character (chr(0)) after "b"`,
		`FROM nb_train('b', 'g', 'y', features := ['a' || chr(0)])`: `nb_train: features holds a NUL character (chr(0)) after "a"`,
	} {
		if _, err := db.Exec(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", q, err, want)
		}
	}
	if n := queryStrings(t, db, `SELECT count(*) FROM nb.models WHERE name IN ('b', 'b'||chr(0)||'c')`); n[0][0] != "0" {
		t.Errorf("a model was stored under a cut name: %v", n)
	}
	if got := queryStrings(t, db, `SELECT nb_predict('it''s', {'a': 10.1}), nb_predict('m', {'a': 10.1})`); got[0][0] != "1" || got[0][1] != "1" {
		t.Errorf("names without NUL: %v", got)
	}
}

// TestFieldNamesFoldASCIIOnly: struct fields and row keys match features exactly, else ignoring ASCII case
// only, as DuckDB's identifiers: a model with features "É" and "é" given only 'É' lacks "é" (nb_predict fed
// É's value to both, Unicode-folding, where DuckDB and the exported macro say the field is missing); "X" still
// finds feature "x".
func TestFieldNamesFoldASCIIOnly(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT ['a','b'][i%2+1] AS y, (i%2) + (i%7)/5.0 AS "É", (i%5)/2.0 - (i%2) AS "é", (i%3) * 1.0 AS x FROM range(200) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 't', 'y')`)
	if _, err := db.Exec(`SELECT nb_predict('m', {'É': 1.0, 'x': 1.0})`); err == nil || !strings.Contains(err.Error(), `needs feature "é", which the struct argument lacks`) {
		t.Errorf("struct without é: %v", err)
	}
	got := queryStrings(t, db, `SELECT nb_proba('m', {'É': 1.0, 'é': 0.5, 'X': 2.0}, 'b') = nb_proba('m', {'É': 1.0, 'é': 0.5, 'x': 2.0}, 'b')`)
	if got[0][0] != "true" {
		t.Errorf("X for x: %v", got)
	}
	s := mustScorer(t, db, "m")
	if _, _, err := s.ScoreRow(map[string]any{"É": 1.0, "x": 1.0}); err == nil || !strings.Contains(err.Error(), `"é"`) {
		t.Errorf("ScoreRow without é: %v", err)
	}
	if _, _, err := s.ScoreRow(map[string]any{"É": 1.0, "é": 0.5, "X": 1.0}); err != nil {
		t.Errorf("ScoreRow with X for x: %v", err)
	}
}

// TestSaveRefreshesScoring: a model stored with sqlnb.Save is what the SQL functions score next (Save kept
// the generation it was given, and nb_proba went on scoring the model it had cached), and a loaded model
// saved under a new name is stored (its version marker collided with the original's: "Sequence ... already
// exists").
func TestSaveRefreshesScoring(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y, (i % 3) + sin(i) AS x FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('a', 'SELECT * FROM d LIMIT 30', 'y')`)
	mustExec(t, db, `CALL nb_train('b', 'SELECT * FROM d OFFSET 30', 'y')`)
	before := queryStrings(t, db, `SELECT nb_proba('a', {'x': 1.5}, '1')`)[0][0]
	a, err := sqlnb.Load(ctx, db, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := sqlnb.Load(ctx, db, "b")
	if err != nil {
		t.Fatal(err)
	}
	merged, err := sqlnb.Merge(a, []string{"0", "1", "2"}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlnb.Save(ctx, db, merged); err != nil {
		t.Fatal(err)
	}
	s, err := sqlnb.Compile(merged)
	if err != nil {
		t.Fatal(err)
	}
	post, _, err := s.ScoreRow(map[string]any{"x": 1.5})
	if err != nil {
		t.Fatal(err)
	}
	after := queryStrings(t, db, `SELECT nb_proba('a', {'x': 1.5}, '1')`)[0][0]
	if want := strconv.FormatFloat(post["1"], 'g', -1, 64); after != want || after == before {
		t.Errorf("after Save: nb_proba %s, the saved model's %s (before: %s)", after, want, before)
	}
	b.Name = "copy_of_b"
	if err := sqlnb.Save(ctx, db, b); err != nil {
		t.Fatalf("Save of a loaded model under a new name: %v", err)
	}
	if got := queryStrings(t, db, `SELECT nb_proba('copy_of_b', {'x': 1.5}, '1') = nb_proba('b', {'x': 1.5}, '1')`); got[0][0] != "true" {
		t.Errorf("copy_of_b scores unlike b: %v", got)
	}
}

// TestMergeChecksParts: sqlnb.Merge refuses parts whose features differ from the base's (it returned a model
// whose statistics lacked a feature, scored without error) and nil models (a panic); a nil order keeps every
// part's classes (it dropped them all, and Compile failed later).
func TestMergeChecksParts(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y, (i % 3) + sin(i) AS x, cos(i) AS z FROM range(300) r(i)`)
	mustExec(t, db, `CALL nb_train('a', 'SELECT * FROM d LIMIT 30', 'y')`)
	mustExec(t, db, `CALL nb_train('b', 'SELECT * FROM d OFFSET 30', 'y')`)
	mustExec(t, db, `CALL nb_train('x', 'SELECT y, x FROM d', 'y')`)
	load := func(name string) *sqlnb.Model {
		m, err := sqlnb.Load(ctx, db, name)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, x := load("a"), load("b"), load("x")
	if _, err := sqlnb.Merge(a, nil, a, x); !errors.Is(err, sqlnb.ErrBadOption) || !strings.Contains(err.Error(), `lacks "z"`) {
		t.Errorf("Merge of (x, z) with (x): %v", err)
	}
	if _, err := sqlnb.Merge(nil, nil, a); !errors.Is(err, sqlnb.ErrBadOption) {
		t.Errorf("Merge(nil): %v", err)
	}
	m, err := sqlnb.Merge(a, nil, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Classes) != 3 || m.Rows != 300 {
		t.Errorf("Merge with a nil order: %d classes, %d rows", len(m.Classes), m.Rows)
	}
	if _, err := sqlnb.Compile(m); err != nil {
		t.Error(err)
	}
}

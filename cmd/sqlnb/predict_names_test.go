package main

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// TestPredictColumnNames: classes whose proba_ columns differ only in case, and sqlnb columns the source
// already has, are errors saying what to do — never silently renamed columns; --prefix and --proba-map
// resolve them.
func TestPredictColumnNames(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['A', 'a', 'b'][1 + i % 3] AS y, i * 1.0 AS x, i % 2 AS prediction FROM range(30) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT y, x FROM d")
	for _, c := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--from", "d"}, `"prediction"`},
		{[]string{"--from", "SELECT x FROM d", "--proba"}, `"proba_a"`},
		// Two classes' columns: only --proba-map helps (--prefix names both alike).
		{[]string{"--from", "SELECT x FROM d", "--proba", "--prefix", "nb_"}, `"nb_proba_a" (posterior of class "a") would clash with sqlnb's posterior of class "A", as DuckDB's column names ignore case: use --proba-map`},
		{[]string{"--from", "d", "--columns", "x,nope"}, `"nope"`},
		{[]string{"--from", "d", "--columns", "x,X"}, `--columns names "X" and "x", which are one column to DuckDB`},
		{[]string{"--from", "d", "--output", "o.parquet", "--format", "csv"}, `the file's format comes from its extension (parquet)`},
	} {
		_, errs, code := sqlnbRun(t, append([]string{"predict", "--model", "m"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.mention) {
			t.Errorf("predict %v: exit %d, %s", c.args, code, errs)
		}
	}
	// DuckDB folds only ASCII letters: classes "É" and "é" have two columns.
	mustRun(t, "train", "--model", "e", "--label", "y", "--from", "SELECT CASE WHEN y = 'A' THEN 'É' ELSE 'é' END AS y, x FROM d")
	if out := mustRun(t, "predict", "--model", "e", "--from", "SELECT x FROM d LIMIT 1", "--proba", "--format", "csv"); !strings.HasPrefix(out, "x,prediction,proba_É,proba_é\n") {
		t.Errorf("classes É and é: %q", out)
	}
	out := mustRun(t, "predict", "--model", "m", "--from", "d", "--prefix", "nb_", "--proba-map", "--format", "csv")
	if head := strings.SplitN(out, "\n", 2)[0]; head != "y,x,prediction,nb_prediction,nb_proba" {
		t.Errorf("columns %q", head)
	}
}

// TestPredictProbaColumns: predict --proba's proba_<class> columns are the model's posteriors in its class
// order (each equal to nb_proba of that class, bit for bit), next
// to the prediction, the kept columns and --proba-map's MAP; and the model is evaluated once per row for all
// of them (DuckDB's plan computes the posteriors in a projection of their own: a column per class would cost
// K kernel evaluations, 5 of the 27 s of predict --proba from a CSV file at 10 classes, 20 features, 10M rows).
func TestPredictProbaColumns(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['lo', 'mid', 'hi'][1 + i % 3] AS y, i % 7 + (i % 3) * 0.5 AS x, i AS id FROM range(90) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT y, x FROM d")
	mustRun(t, "predict", "--model", "m", "--from", "d", "--columns", "id,x", "--proba", "--proba-map", "--output", "p.parquet")
	out := mustRun(t, "sql", "--format", "csv", "-c", `SELECT string_agg(column_name, ' ') AS c FROM (DESCRIBE FROM 'p.parquet')`)
	if !strings.Contains(out, "id x prediction proba proba_hi proba_lo proba_mid\n") {
		t.Errorf("columns: %s", out)
	}
	out = mustRun(t, "sql", "--format", "csv", "-c", `SELECT count(*) FILTER (WHERE
		p.proba_hi <> nb_proba('m', d, 'hi') OR p.proba_lo <> nb_proba('m', d, 'lo') OR p.proba_mid <> nb_proba('m', d, 'mid') OR p.proba_hi <> p.proba['hi'] OR p.proba_mid <> p.proba['mid'] OR
		p.prediction <> nb_predict('m', d) OR abs(p.proba_hi + p.proba_lo + p.proba_mid - 1) > 1e-15) AS bad, count(*) AS n
		FROM 'p.parquet' p JOIN d USING (id)`)
	if !strings.HasSuffix(out, "\n0,90\n") {
		t.Errorf("proba columns differ from nb_proba, nb_predict or the MAP (mismatches, rows): %s", out)
	}
	ctx := context.Background()
	db, err := udf.Open("sqlnb.duckdb")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := sqlnb.Load(ctx, db, "m")
	if err != nil {
		t.Fatal(err)
	}
	src, err := nb.ResolveSource(ctx, db, "d")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := predictQuery(ctx, db, &predictOptions{model: "m", proba: true}, m, src)
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	rows, err := db.QueryContext(ctx, "EXPLAIN (FORMAT json) "+sel, src.Args...)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(v)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	// The posteriors are a column of their own projection, below the one that takes them apart (inlined into
	// each proba_ column, the expression would be evaluated per class and the column would be gone).
	if p := plan.String(); !strings.Contains(p, `"__sqlnb_posteriors"`) || strings.Contains(p, "nb_proba(") {
		t.Errorf("the plan does not compute the posteriors once per row:\n%s", p)
	}
}

// TestSourceColumnNamedT: a source column named t (or T) is an ordinary column: predict, eval, cv and compare
// score every row by the model's features. The queries aliased the source as t, and DuckDB binds a bare name
// to a column first: a model with feature t could not be scored ("3 features … but 1 were given"), and a
// struct column t was scored in place of the row, with exit 0.
func TestSourceColumnNamedT(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE tr AS SELECT ['a', 'b', 'c'][1 + i % 3] AS y, (i % 3) + sin(i) AS x1, (i % 3) + cos(7 * i) AS x2,
		(i % 3) + sin(3 * i) AS t FROM range(300) r(i)`)
	mustRun(t, "train", "--model", "mt", "--label", "y", "--from", "tr")
	mustRun(t, "train", "--model", "g", "--label", "y", "--from", "SELECT y, x1, x2 FROM tr")
	want := mustRun(t, "sql", "--format", "csv", "-c", `SELECT t, nb_predict('mt', struct_pack(x1, x2, t)) AS prediction FROM tr`)
	if got := mustRun(t, "predict", "--model", "mt", "--from", "tr", "--columns", "t", "--format", "csv"); got != want {
		t.Errorf("predict with feature t: %q…, want %q…", got[:min(len(got), 80)], want[:min(len(want), 80)])
	}
	mustRun(t, "eval", "--model", "mt", "--from", "tr")
	mustRun(t, "cv", "--from", "tr", "--label", "y", "--folds", "3")
	mustRun(t, "compare", "--from", "tr", "--label", "y", "--kinds", "gaussian")
	// A struct column t beside the features: the row is scored, not the struct.
	got := mustRun(t, "predict", "--model", "g", "--from", "SELECT x1, x2, {'x1': 0.0, 'x2': 0.0} AS t FROM tr", "--format", "csv", "--columns", "x1")
	want = mustRun(t, "predict", "--model", "g", "--from", "SELECT x1, x2 FROM tr", "--format", "csv", "--columns", "x1")
	if got != want {
		t.Errorf("struct column t: scored %q…, want %q…", got[:80], want[:80])
	}
}

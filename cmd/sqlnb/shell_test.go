package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellScript runs `sqlnb shell` with a script on stdin (not a terminal): statements across lines,
// every dot command, results on stdout, and exit status 1 at the first error.
func TestShellScript(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("inner.sql", []byte("SELECT 'from .read' AS src;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `CREATE TABLE t AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, i % 2 + 0.1 * i AS x FROM range(20) r(i);
CALL nb_train('m', 't', 'y');
.tables
.schema t
.models
.mode line
SELECT nb_predict('m', {'x': 0.2}) AS p,
       NULL AS n;
.mode markdown
SELECT 1 AS one;
.read inner.sql
.output out.csv
.mode csv
SELECT 42 AS answer;
.output
.timer on
SELECT 'timed' AS z;
.timer off
.help
`
	f := filepath.Join(dir, "script.sql")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _ := os.Open(f)
	defer in.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"shell", filepath.Join(dir, "s.duckdb")}, in, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"│ t ", "CREATE TABLE t(y VARCHAR, x DECIMAL", "│ m ", "p = a\nn = NULL", "| one |\n|---|\n| 1 |",
		"from .read", "z\ntimed", ".timer on|off"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "answer") {
		t.Errorf(".output did not redirect: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.csv")); string(b) != "answer\n42\n" {
		t.Errorf("out.csv = %q", b)
	}
	if !strings.Contains(stderr.String(), "Run Time: ") {
		t.Errorf(".timer printed nothing: %q", stderr.String())
	}
	// The first error ends a script with status 1; later statements do not run.
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"shell", ":memory:"}, strings.NewReader("SELECT 1 AS ok;\n.bogus\nSELECT 2 AS never;\n"), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "unknown dot command .bogus") || strings.Contains(stdout.String(), "never") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestShellDotCommands: .open switches the database, .maxrows limits a table, .import reads csv, tsv,
// parquet and json files (creating the table, then appending to it), and statements that only DuckDB's own
// parser splits right run as in `sqlnb sql -c`.
func TestShellDotCommands(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{"a.csv": "id,name\n1,x\n2,y\n", "b.tsv": "id\tname\n3\tz\n", "c.json": `[{"id": 4, "name": "w"}]`}
	for f, text := range files {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `COPY (SELECT 5 AS id, 'v' AS name) TO 'd.parquet';
.import a.csv people
.import b.tsv people
.import c.json people
.import d.parquet people
.import a.csv other
SELECT count(*) AS n, string_agg(name, '' ORDER BY id) AS names FROM people;
.maxrows 2
SELECT * FROM people ORDER BY id;
.maxrows
.maxrows 0
SELECT $tag$a;b$tag$ AS dollar;
SELECT E'a\';b' AS escaped;
SELECT 1 AS x -- a comment; with a semicolon
, 2 AS y;
.open second.duckdb
CREATE TABLE only_here AS SELECT 42 AS v;
.tables
.open
SELECT count(*) AS tables FROM duckdb_tables();
.open second.duckdb
SELECT v FROM only_here;
SELECT 'no semicolon at the end' AS last
`
	var stdout, stderr bytes.Buffer
	if code := run([]string{"shell", filepath.Join(dir, "first.duckdb")}, strings.NewReader(script), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"│ 5      │ xyzwv ", // 2 + 1 + 1 + 1 rows, appended in order
		"│ 1      │ x       │\n│ 2      │ y       │\n└────────┴─────────┘\n… 3 more rows\n(5 rows)",
		"\n2\n", // .maxrows without a number prints it
		"a;b", "a';b", "│ x       │ y       │",
		"only_here", "│ 0      │", // a new in-memory database has no tables
		"│ 42 ", "no semicolon at the end",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"created people: 2 rows from a.csv", "appended to people: 1 row from b.tsv",
		"appended to people: 1 row from d.parquet", "created other: 2 rows"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "second.duckdb")); err != nil {
		t.Errorf(".open did not create the file: %v", err)
	}

	// Errors: each names what to do.
	for _, c := range []struct{ line, want string }{
		{".import nosuch.xlsx t", "not a file DuckDB reads"},
		{".import a.csv", "give a file and a table"},
		{".maxrows many", "give a number of rows"},
		{".open /nonexistent/dir/x.duckdb", "x.duckdb"},
		{".open a.csv", `"a.csv" is not a DuckDB database (it is a text file, CSV-like)`},
		{"SELECT 'open string", "unterminated"}, // DuckDB 1.5: "quoted string", 2.0: "string literal"
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{"shell", ":memory:"}, strings.NewReader(c.line+"\n"), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.line, code, stderr.String(), c.want)
		}
	}
}

// TestShellQuotedNames: dot commands read their arguments as the DuckDB CLI does: a table in double quotes
// (spaces, dots and doubled quotes inside), a file in single quotes; .schema finds a name whatever its case,
// the exact one when names differ only by case; a bad argument says how to write it.
func TestShellQuotedNames(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"one.csv", "my file.csv"} {
		if err := os.WriteFile(f, []byte("a,b\n1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `.import one.csv "Imp"
.import one.csv "My Table"
.import 'my file.csv' main."a.b"
.import "one.csv" "say ""hi"""
.import one.csv IMP
SELECT count(*) AS imp_rows FROM imp;
SELECT table_name FROM duckdb_tables() ORDER BY ALL;
CREATE TABLE "my data"(x INT);
CREATE SCHEMA s;
CREATE TABLE s."My Data"(y INT);
.output schema1.txt
.schema "my data"
.output schema2.txt
.schema MY_DATA
.output schema3.txt
.schema "MY DATA"
.output schema4.txt
.schema s."my data"
.output
`
	var stdout, stderr bytes.Buffer
	if code := run([]string{"shell", filepath.Join(dir, "q.duckdb")}, strings.NewReader(script), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{"│ 2        │", "│ Imp", "│ My Table", "│ a.b", `│ say "hi"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"Imp"`) || strings.Count(out, "Imp") != 1 {
		t.Errorf("tables (one Imp, named without quotes):\n%s", out)
	}
	for f, want := range map[string]string{
		"schema1.txt": "CREATE TABLE \"my data\"(x INTEGER);\n",
		"schema2.txt": "",
		"schema3.txt": "CREATE TABLE \"my data\"(x INTEGER);\nCREATE TABLE s.\"My Data\"(y INTEGER);\n",
		"schema4.txt": "CREATE TABLE s.\"My Data\"(y INTEGER);\n",
	} {
		if b, _ := os.ReadFile(f); string(b) != want {
			t.Errorf("%s = %q, want %q", f, b, want)
		}
	}

	for _, c := range []struct{ line, want string }{
		{`.import one.csv "My Table`, `a " quote is not closed`},
		{`.import one.csv My Table`, "give a file and a table (quote a name with spaces"},
		{`.import one.csv "a"b`, "write a name with quotes, spaces or dots in double quotes"},
		{`.import one.csv 'tbl'`, "write a name with quotes, spaces or dots in double quotes"},
		{`.import one.csv a..b`, "empty name"},
		{`.import one.csv a.b.c`, "give NAME or SCHEMA.NAME"},
		{`.schema a b`, "give one table or view"},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{"shell", ":memory:"}, strings.NewReader(c.line+"\n"), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.line, code, stderr.String(), c.want)
		}
	}
}

// TestShellImportByName: .import into a table that is there matches the file's columns by name (INSERT ... BY
// NAME): a file with the same columns in another order went in by position, name into city and city into
// name, without an error.
func TestShellImportByName(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"p1.csv": "name,city\nann,paris\n", "p2.csv": "city,name\nrome,bob\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf(".import %s people\n.import %s people\n.mode csv\nSELECT name, city FROM people ORDER BY name;\n",
		filepath.Join(dir, "p1.csv"), filepath.Join(dir, "p2.csv"))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"shell", ":memory:"}, strings.NewReader(script), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "name,city\nann,paris\nbob,rome\n"; !strings.Contains(stdout.String(), want) {
		t.Errorf("got %q, want %q", stdout.String(), want)
	}
}

// TestNamedArgumentsRefusedBySQLAndShell: sql -c and the shell run their statements on udf.Open's
// connections, so a scoring call's named arguments are refused there in any statement (here a CREATE TABLE
// … AS, which json_serialize_sql cannot show), before it runs.
func TestNamedArgumentsRefusedBySQLAndShell(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	mustRun(t, "sql", "--db", "n.duckdb", "-c", `CREATE TABLE g AS SELECT (i % 2)::INT AS y, (i % 2) * 10.0 + (i % 5) * 0.1 AS a,
		(i % 3) * 1.0 AS b FROM range(100) r(i); CALL nb_train('m', 'g', 'y')`)
	ctas := `CREATE TABLE out AS SELECT nb_predict('m', b => 0.0, a => 10.0) AS p;`
	_, stderr, code := sqlnbRun(t, "sql", "--db", "n.duckdb", "-c", ctas)
	if code == exitOK || !strings.Contains(stderr, `named argument "b" => …`) {
		t.Errorf("sql -c: exit %d, stderr %q", code, stderr)
	}
	var stdout, errs bytes.Buffer
	if code := run([]string{"shell", "n.duckdb"}, strings.NewReader(ctas+"\n"), &stdout, &errs); code == exitOK || !strings.Contains(errs.String(), `named argument "b" => …`) {
		t.Errorf("shell: exit %d, stderr %q", code, errs.String())
	}
	if got := mustRun(t, "sql", "--db", "n.duckdb", "--format", "csv", "-c", `SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'out'`); got != "n\n0\n" {
		t.Errorf("table of the refused statement: %q", got)
	}
}

// TestParametersWithoutValues: sql and the shell give a statement no values, so one with parameters (? or
// $1) cannot run; the error says so and what to write instead (database/sql's own says "incorrect argument
// count for command: have 0 want 1"). PREPARE and EXECUTE, the way the error names, work.
func TestParametersWithoutValues(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	mustRun(t, "sql", "--db", "p.duckdb", "-c", `CREATE TABLE g AS SELECT (i % 2)::INT AS y, (i % 2) * 10.0 + (i % 5) * 0.1 AS a,
		(i % 3) * 1.0 AS b FROM range(100) r(i); CALL nb_train('m', 'g', 'y')`)
	for _, c := range []struct{ name, q, want string }{
		{"question mark", `SELECT nb_predict('m', {'a': ?, 'b': 1.0})`, "the statement has 1 parameter (?, $1 or $name)"},
		{"numbered", `SELECT nb_predict('m', {'a': $1, 'b': $2})`, "the statement has 2 parameters (?, $1 or $name)"},
		{"named", `SELECT $a::INT AS a`, "the statement has 1 parameter (?, $1 or $name)"},
	} {
		_, stderr, code := sqlnbRun(t, "sql", "--db", "p.duckdb", "-c", c.q)
		if code == exitOK || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "sqlnb sql cannot give it values: write the values in, or use PREPARE and EXECUTE") {
			t.Errorf("sql -c, %s: exit %d, stderr %q", c.name, code, stderr)
		}
		var stdout, errs bytes.Buffer
		if code := run([]string{"shell", "p.duckdb"}, strings.NewReader(c.q+";\n"), &stdout, &errs); code == exitOK ||
			!strings.Contains(errs.String(), c.want) || !strings.Contains(errs.String(), "the shell cannot give it values") {
			t.Errorf("shell, %s: exit %d, stderr %q", c.name, code, errs.String())
		}
	}
	got := mustRun(t, "sql", "--db", "p.duckdb", "--format", "csv", "-c",
		`PREPARE p AS SELECT nb_predict('m', {'a': ?, 'b': 1.0}) AS p; EXECUTE p(10.0); EXECUTE p(0.0)`)
	if got != "p\n1\np\n0\n" { // a = 10.x only in class 1, a = 0.x only in class 0 (the table above)
		t.Errorf("PREPARE and EXECUTE: %q", got)
	}
}

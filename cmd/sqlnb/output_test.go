package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestMaxRows: a table shows at most --max-rows rows (40 by default, as the DuckDB CLI) and says how many
// it left out; csv and json write every row.
func TestMaxRows(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string // in this order
		not  []string
	}{
		{"default 40", []string{"sql", "-c", "SELECT i FROM range(100) r(i)"},
			[]string{"│ 39 ", "… 60 more rows\n(100 rows)\n"}, []string{"│ 40 "}},
		{"--max-rows 3", []string{"--max-rows", "3", "sql", "-c", "SELECT i FROM range(10) r(i)"},
			[]string{"│ 0 ", "│ 2 ", "└", "… 7 more rows\n(10 rows)\n"}, []string{"│ 3 "}},
		{"one more row", []string{"--max-rows", "3", "sql", "-c", "SELECT i FROM range(4) r(i)"},
			[]string{"… 1 more row\n(4 rows)\n"}, nil},
		{"all rows fit", []string{"--max-rows", "3", "sql", "-c", "SELECT i FROM range(3) r(i)"},
			[]string{"│ 2 ", "(3 rows)\n"}, []string{"more row"}},
		{"0 shows all", []string{"--max-rows", "0", "sql", "-c", "SELECT i FROM range(100) r(i)"},
			[]string{"│ 99 ", "(100 rows)\n"}, []string{"more row"}},
		{"csv writes all", []string{"--max-rows", "3", "sql", "--format", "csv", "-c", "SELECT i FROM range(100) r(i)"},
			[]string{"i\n0\n", "\n99\n"}, []string{"more row"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(append([]string{"--db", ":memory:"}, c.args...), strings.NewReader(""), &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			s, at := out.String(), 0
			for _, w := range c.want {
				i := strings.Index(s[at:], w)
				if i < 0 {
					t.Fatalf("output lacks %q after byte %d:\n%s", w, at, s)
				}
				at += i + len(w)
			}
			for _, w := range c.not {
				if strings.Contains(s, w) {
					t.Errorf("output has %q:\n%s", w, s)
				}
			}
		})
	}
}

// TestStructFieldOrder: a STRUCT shows its fields in their declared order, as DuckDB's CLI and its VARCHAR
// cast do (the driver hands a STRUCT over as a Go map), in every format and inside lists, maps and other
// structs; a MAP in JSON keeps its keys' order. nb_explain's rows start with class and versus.
func TestStructFieldOrder(t *testing.T) {
	stmt := `SELECT {'b': 1, 'a': {'z': 'x y', 'y': [{'q': 1, 'p': 2}]}} AS "n""x", MAP {'z': 1, 'a': 2} AS m`
	for _, c := range []struct{ format, want string }{
		{"csv", "\"{'b': 1, 'a': {'z': x y, 'y': [{'q': 1, 'p': 2}]}}\",\"{z=1, a=2}\"\n"},
		{"line", "n\"x = {'b': 1, 'a': {'z': x y, 'y': [{'q': 1, 'p': 2}]}}\n"},
		{"table", "│ {'b': 1, 'a': {'z': x y, 'y': [{'q': 1, 'p': 2}]}} "},
		{"json", `"b": 1,
      "a": {
        "z": "x y",
        "y": [
          {
            "q": 1,
            "p": 2`},
		{"json", `"m": {
      "z": 1,
      "a": 2`},
	} {
		var out, errOut bytes.Buffer
		if code := run([]string{"--db", ":memory:", "sql", "--format", c.format, "-c", stmt}, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.format, code, errOut.String())
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: want %q in\n%s", c.format, c.want, out.String())
		}
	}
	// DuckDB's own rendering is the reference.
	var out, errOut bytes.Buffer
	run([]string{"--db", ":memory:", "sql", "--format", "csv", "-c", `SELECT {'b': 1, 'a': {'z': 2}}::VARCHAR AS s`}, strings.NewReader(""), &out, &errOut)
	if want := "\"{'b': 1, 'a': {'z': 2}}\"\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("DuckDB renders %q, the test expects %q", out.String(), want)
	}
}

// TestUnnamedStruct: the Go driver cannot read a STRUCT without field names; the error says what to write
// instead, and the advice works.
func TestUnnamedStruct(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"--db", ":memory:", "sql", "-c", "SELECT (1, 'a') AS s"}, strings.NewReader(""), &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "STRUCT without field names") || !strings.Contains(errOut.String(), "cast it to VARCHAR") {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	// DuckDB's own errors pass as they are, whatever words they quote.
	errOut.Reset()
	if code := run([]string{"--db", ":memory:", "sql", "-c", "SELECT error('an empty name and an unsupported data type')"}, strings.NewReader(""), &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "an empty name and an unsupported data type") || strings.Contains(errOut.String(), "Go driver") {
		t.Errorf("error(): exit %d: %s", code, errOut.String())
	}
	for _, q := range []string{"SELECT MAP {[1, 2]: 'a'} AS m", "SELECT TIME_NS '12:34:56.123456789' AS t"} {
		errOut.Reset()
		if code := run([]string{"--db", ":memory:", "sql", "-c", q}, strings.NewReader(""), &out, &errOut); code != 1 ||
			!strings.Contains(errOut.String(), "cast it to VARCHAR") {
			t.Errorf("%s: exit %d: %s", q, code, errOut.String())
		}
	}
	out.Reset()
	if code := run([]string{"--db", ":memory:", "sql", "--format", "csv", "-c", "SELECT (1, 'a')::VARCHAR AS s, {'x': 1, 'y': 'a'} AS n"}, strings.NewReader(""), &out, &errOut); code != 0 ||
		out.String() != "s,n\n\"(1, a)\",\"{'x': 1, 'y': a}\"\n" {
		t.Errorf("exit %d: %q", code, out.String())
	}
}

// TestSQLEveryResult: sql prints each statement's result, as the DuckDB CLI does, except the reports of
// statements that only change something (CREATE, INSERT, COPY, SET: a Count or Success column; INSERT …
// RETURNING's rows are printed); a failing statement stops the run and the error says which one and how
// many ran; text of only comments is no SQL to run, not an error; -c "" is no SQL (it read standard input).
func TestSQLEveryResult(t *testing.T) {
	t.Chdir(t.TempDir())
	sqlRun := func(stdin string, args ...string) (string, string, int) {
		var out, errs bytes.Buffer
		code := run(append([]string{"--db", ":memory:", "sql", "--format", "csv"}, args...), strings.NewReader(stdin), &out, &errs)
		return out.String(), errs.String(), code
	}
	out, errs, code := sqlRun("SELECT 1 AS a;\nSET threads = 1;\nCREATE TABLE t AS SELECT 2 AS b;\nINSERT INTO t VALUES (3) RETURNING b;\nCOPY t TO 'x.csv';\n" +
		"PRAGMA threads = 1;\nWITH s AS (SELECT 4 AS b) INSERT INTO t SELECT * FROM s;\nPREPARE p AS INSERT INTO t VALUES ($1);\nEXECUTE p(5);\n" +
		"MERGE INTO t USING (SELECT 6 AS b) s ON t.b = s.b WHEN NOT MATCHED THEN INSERT VALUES (s.b);\nSELECT count(*) AS n FROM t")
	if code != exitOK || out != "a\n1\nb\n3\nn\n5\n" {
		t.Errorf("exit %d, %q, %s", code, out, errs)
	}
	out, errs, code = sqlRun("SELECT 1 AS a;\nSELECT 2 AS b;\nSELECT x FROM range(3);\nSELECT 4 AS c;")
	if code != exitError || out != "a\n1\nb\n2\n" || !strings.Contains(errs, "statement 3 of 4 (the 2 before it ran)") || !strings.Contains(errs, "LINE 1:") {
		t.Errorf("a failing statement: exit %d, %q, %s", code, out, errs)
	}
	if out, errs, code = sqlRun("", "-c", "-- only a comment"); code != exitOK || out != "" {
		t.Errorf("a comment: exit %d, %q, %s", code, out, errs)
	}
	if out, errs, code = sqlRun("SELECT 42 AS from_stdin", "-c", ""); code != exitUsage || out != "" || !strings.Contains(errs, "no SQL given") {
		t.Errorf(`-c "": exit %d, %q, %s`, code, out, errs)
	}
	if out, errs, code = sqlRun("", "-c", "SELECT 1 AS a; SELECT 'x;y' AS b -- the last one; without its semicolon"); code != exitOK || out != "a\n1\nb\nx;y\n" {
		t.Errorf("two statements in -c: exit %d, %q, %s", code, out, errs)
	}
}

// TestLineModeWidth: line mode aligns the '=' by display width (日本語 takes six columns, as in a terminal).
func TestLineModeWidth(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"--db", ":memory:", "sql", "--format", "line", "-c", "SELECT 1 AS 日本語, 2 AS abc, 3 AS abcdefg"}, strings.NewReader(""), &out, &errs); code != 0 ||
		out.String() != " 日本語 = 1\n    abc = 2\nabcdefg = 3\n" {
		t.Errorf("exit %d: %q %s", code, out.String(), errs.String())
	}
}

// TestTableWholeOffTerminal: off a terminal (a file, a pipe) a table's values are whole (internal/output's
// TestTableFitsTerminal cuts them on one).
func TestTableWholeOffTerminal(t *testing.T) {
	var out bytes.Buffer
	long := strings.Repeat("abcdefghij", 20)
	if code := run([]string{"--db", ":memory:", "sql", "-c", "SELECT repeat('abcdefghij', 20) AS long"}, strings.NewReader(""), &out, &out); code != 0 || !strings.Contains(out.String(), long) {
		t.Errorf("not a terminal: exit %d\n%s", code, out.String())
	}
}

// TestSQLScripts: sql runs scripts as DuckDB does: a ';' inside a -- comment ends nothing (every script
// export --sql writes starts with one), text that ends inside a string or comment is DuckDB's parse error
// (it ran nothing and exited 0), and a long string full of ';' splits in linear time (it parsed the text
// again at each one: 160 KB took minutes).
func TestSQLScripts(t *testing.T) {
	t.Chdir(t.TempDir())
	sqlRun := func(args ...string) (string, string, int) {
		var out, errs bytes.Buffer
		code := run(append([]string{"--db", ":memory:", "sql", "--format", "csv"}, args...), strings.NewReader(""), &out, &errs)
		return out.String(), errs.String(), code
	}
	if out, errs, code := sqlRun("-c", "-- one; two\nSELECT 42 AS answer;\n-- the end; really"); code != exitOK || out != "answer\n42\n" {
		t.Errorf("a ';' in a comment: exit %d, %q, %s", code, out, errs)
	}
	for _, q := range []string{"SELECT 'abc", "SELECT 1; SELECT 2 /* x", "SELECT $$abc"} {
		// DuckDB's message (2.0 says "syntax error at or near" for a dollar-quoted string left open).
		if out, errs, code := sqlRun("-c", q); code != exitError || out != "" || !strings.Contains(errs, "Parser Error") {
			t.Errorf("%s: exit %d, %q, %s", q, code, out, errs)
		}
	}
	long := "SELECT length('" + strings.Repeat("abcdefg;", 20000) + "') AS n; SELECT 'a;b' AS s, $x$c;d$x$ AS t, E'e\\';f' AS u /* g; /* h; */ i; */"
	start := time.Now()
	if out, errs, code := sqlRun("-c", long); code != exitOK || out != "n\n160000\ns,t,u\na;b,c;d,e';f\n" {
		t.Errorf("long strings: exit %d, %q, %s", code, out, errs)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("splitting 160 KB with 20,000 ';' in a string took %v", d)
	}
	// An exported scoring script runs through sql as it is.
	mustRun(t, "--db", "m.duckdb", "train", "--model", "m", "--label", "y", "--from", "SELECT ['a', 'b'][1 + i % 2] AS y, sin(i) + i % 2 AS x FROM range(40) r(i)")
	mustRun(t, "--db", "m.duckdb", "export", "--model", "m", "--sql", "m.sql")
	if out := mustRun(t, "--db", "m.duckdb", "sql", "--format", "csv", "m.sql", "--quiet"); out != "" {
		t.Errorf("running the exported script printed %q", out)
	}
	if out := mustRun(t, "--db", "m.duckdb", "sql", "--format", "csv", "-c", "SELECT m_predict({'x': 1.2}) = nb_predict('m', {'x': 1.2}) AS same"); out != "same\ntrue\n" {
		t.Errorf("the exported macro: %q", out)
	}
}

// TestTableLeftOutNotice: a table written to a file or a pipe (sqlnb predict ... > scored.txt) that leaves
// rows out (--max-rows) says so on stderr — the rows were lost without a word — and nothing is said when
// every row is there.
func TestTableLeftOutNotice(t *testing.T) {
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"sql", "--db", ":memory:", "-c", "FROM range(100)"}, "the table shows 40 of the 100 rows (--max-rows 40)"},
		{[]string{"--max-rows", "0", "sql", "--db", ":memory:", "-c", "FROM range(100)"}, ""},
		{[]string{"sql", "--db", ":memory:", "--format", "csv", "-c", "FROM range(100)"}, ""},
		{[]string{"sql", "--db", ":memory:", "-c", "FROM range(40)"}, ""},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr.String())
		}
		if got := stderr.String(); c.note == "" && got != "" || c.note != "" && !strings.Contains(got, c.note) {
			t.Errorf("%v: stderr %q, want %q", c.args, got, c.note)
		}
	}
}

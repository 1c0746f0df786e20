package main

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/udf"
)

// mustOpenConn opens an in-memory database with the nb_* functions and one connection of it.
func mustOpenConn(tb testing.TB) *sql.Conn {
	tb.Helper()
	db, err := udf.Open(":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close(); db.Close() })
	return conn
}

func mustParser(tb testing.TB) sqlParser {
	tb.Helper()
	parse, err := udf.Parser(mustOpenConn(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return sqlParser{count: parse}
}

// TestSplit: DuckDB's parser decides where statements end and whether the input is complete. The first
// two cases broke the hand-written splitter this replaced (they work in `sqlnb sql -c`).
func TestSplit(t *testing.T) {
	p := mustParser(t)
	for _, c := range []struct {
		name     string
		in       string
		want     []string
		complete bool
		err      string
	}{
		{"dollar-quoted string with a tag", "SELECT $tag$a;b$tag$;", []string{"SELECT $tag$a;b$tag$;"}, true, ""},
		{"escape string", `SELECT E'a\';b';`, []string{`SELECT E'a\';b';`}, true, ""},
		{"two statements", "SELECT 1; SELECT 2;\n", []string{"SELECT 1;", "SELECT 2;"}, true, ""},
		{"quotes and comments", "SELECT 1 AS \"a;b\", 'it''s;' -- c;omment\n;", []string{"SELECT 1 AS \"a;b\", 'it''s;' -- c;omment\n;"}, true, ""},
		{"block comment", "SELECT /* ; */ 1;", []string{"SELECT /* ; */ 1;"}, true, ""},
		{"nested block comment", "SELECT /* /* ; */ ; */ 1;", []string{"SELECT /* /* ; */ ; */ 1;"}, true, ""},
		{"comment after the end", "SELECT 1; -- done;\n", []string{"SELECT 1;"}, true, ""},
		{"only comments", "-- a;\n/* b; */\n", nil, true, ""},
		{"empty statements", ";;", nil, true, ""},
		{"no semicolon yet", "SELECT 1\n", nil, false, ""},
		{"semicolon in a -- comment", "SELECT 1 -- ;\n", nil, false, ""},
		{"open string", "SELECT 'open;\n", nil, false, ""},
		{"open dollar string", "SELECT $tag$a;\n", nil, false, ""},
		{"open escape string", `SELECT E'a\';` + "\n", nil, false, ""},
		{"open quoted identifier", "SELECT 1 AS \"a;\n", nil, false, ""},
		{"open block comment", "SELECT 1; /* note;\n", nil, false, ""},
		{"unfinished statement", "SELECT 1 UNION ALL\n", nil, false, ""},
		{"syntax error waits for its ';'", "SELEC 1\n", nil, false, ""},
		{"syntax error", "SELEC 1;\n", nil, true, "syntax error at or near \"SELEC\""},
		{"a syntax error anywhere runs nothing", "SELECT 1; SELEC 2; SELECT 3;", nil, true, "syntax error"},
		{"unknown table parses", "CREATE TABLE a AS FROM nosuch; SELECT * FROM a;", []string{"CREATE TABLE a AS FROM nosuch;", "SELECT * FROM a;"}, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, complete, err := p.split(c.in)
			if !reflect.DeepEqual(got, c.want) || complete != c.complete {
				t.Errorf("split(%q) = %q, complete %v; want %q, %v", c.in, got, complete, c.want, c.complete)
			}
			if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Errorf("split(%q): error %v, want %q", c.in, err, c.err)
			}
		})
	}
}

// TestFeed: lines typed one at a time make statements when the input is complete, dot commands only
// outside a statement, and one history entry for a statement over several lines.
func TestFeed(t *testing.T) {
	sh := &shell{parser: mustParser(t)}
	var buf strings.Builder
	lines := []string{"-- a comment line", "", ".mode csv", "SELECT 'a;", ".not a dot command';", "SELECT 1 AS x, -- one", "  2 AS y; SELECT 3;"}
	var steps []step
	for _, l := range lines {
		steps = append(steps, sh.feed(&buf, l))
	}
	want := []step{
		{}, {},
		{dot: ".mode csv", entry: ".mode csv"},
		{pending: true},
		{stmts: []string{"SELECT 'a;\n.not a dot command';"}, entry: "SELECT 'a;\n.not a dot command';"},
		{pending: true},
		{stmts: []string{"SELECT 1 AS x, -- one\n  2 AS y;", "SELECT 3;"}, entry: "SELECT 1 AS x, -- one\n  2 AS y; SELECT 3;"},
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps:\n got %+v\nwant %+v", steps, want)
	}
}

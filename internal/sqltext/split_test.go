package sqltext_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/internal/testdb"
)

// TestSplit: DuckDB's parser decides where statements end and whether the input is complete. The first
// two cases broke the hand-written splitter this replaced (they work in `sqlnb sql -c`).
func TestSplit(t *testing.T) {
	p := sqltext.Splitter{Count: testdb.Parser(t), Rules: rules()}
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
			got, complete, err := p.Split(c.in)
			if !reflect.DeepEqual(got, c.want) || complete != c.complete {
				t.Errorf("split(%q) = %q, complete %v; want %q, %v", c.in, got, complete, c.want, c.complete)
			}
			if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Errorf("split(%q): error %v, want %q", c.in, err, c.err)
			}
		})
	}
}

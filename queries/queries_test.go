package queries_test

import (
	"database/sql"
	"strings"
	"testing"
	"unicode/utf8"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlnb/sqlnb/queries"
)

func mustOpenDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var seeds = []string{"x", "a b", `a"b`, `""`, `"`, "'", "''", "ünï 数据 ✓", "(p)", "a.b", "select", "--c", "/*", ";drop table t;", "\\", "\t", " "}

// FuzzIdent: a column named Ident(name) comes back as exactly name.
func FuzzIdent(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	db := mustOpenDB(f)
	f.Fuzz(func(t *testing.T, name string) {
		if queries.ValidIdent(name) != nil || !utf8.ValidString(name) {
			return
		}
		rows, err := db.Query(`SELECT 1 AS ` + queries.Ident(name))
		if err != nil {
			t.Fatalf("Ident(%q) = %s: %v", name, queries.Ident(name), err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		if len(cols) != 1 || cols[0] != name {
			t.Fatalf("Ident(%q): column %q", name, cols)
		}
	})
}

// FuzzLiteral: the literal Literal(s) evaluates to exactly s.
func FuzzLiteral(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	db := mustOpenDB(f)
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
			return
		}
		var got string
		if err := db.QueryRow(`SELECT ` + queries.Literal(s)).Scan(&got); err != nil || got != s {
			t.Fatalf("Literal(%q) = %s: got %q, %v", s, queries.Literal(s), got, err)
		}
	})
}

// TestEveryTemplateRenders keeps the embedded templates parseable.
func TestEveryTemplateRenders(t *testing.T) {
	data := map[string]any{"From": `"t"`, "Label": "y", "Weight": "w",
		"Features": []map[string]any{{"Name": `a "b"`, "Cast": true, "NaNToNull": false, "Binarize": true}}}
	for _, name := range []string{"train_moments.tmpl.sql", "train_counts.tmpl.sql", "train_describe.tmpl.sql", "train_nonfinite.tmpl.sql"} {
		s, err := queries.Render(name, data)
		if err != nil || !strings.Contains(s, `"t"`) {
			t.Errorf("%s: %v\n%s", name, err, s)
		}
	}
}

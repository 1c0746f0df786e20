package sqltext_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/internal/testdb"
	"github.com/sqlnb/sqlnb/udf"
)

// rules are the lexer's rules for the DuckDB line the test runs on.
func rules() sqltext.Rules {
	return sqltext.Rules{Backticks: udf.DuckDBLine().BacktickNames()}
}

// items are valid SELECT items that hold what the lexer must read right: ; inside strings, names and
// comments, escapes, dollar quotes, Unicode blanks.
var items = []string{
	"1", "'a;b'", "'it''s;'", `E'a\';b'`, `e'\\'`, "$$x;y$$", "$t$a;$$b$t$", "$_1$;$_1$", `1 AS "c;d"`, `1 AS "e""f;"`,
	"'g\\'", "/* ; /* ; */ ; */ 2", "-- ;\n3", "-- ;\r4", "x'0f'", "B'01'", "N'n;'", "5 AS a$b", "1_000", ".5e3",
	"'h'\n'i;'", "6 /*/ ; */", "7 +/* ; */ 8", "9 =--;\n 9", "'\u00a0;'", "10\u00a0AS\u3000k", `1 AS "\u00a0;"`,
	"$1", "?", "[1, 2][1:2]", "{'l;': 1}", "11 AS ünï", "'a' || 'b'", "12 -- ; no newline at the end",
}

// randomText joins random statements made of items with random separators, and sometimes cuts it anywhere
// or splices in a stray quote or comment mark.
func randomText(r *rand.Rand, backticks bool) string {
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString([]string{"", " ", "\n", "-- x;\n", "/* y; */ ", "\u00a0"}[r.IntN(6)])
		b.WriteString("SELECT ")
		for k := range 1 + r.IntN(3) {
			if k > 0 {
				b.WriteString(", ")
			}
			it := items[r.IntN(len(items))]
			if backticks && r.IntN(8) == 0 {
				it = "1 AS `m;``n`"
			}
			if strings.HasPrefix(it, "-- ") || strings.HasSuffix(it, "at the end") {
				it += "\n"
			}
			b.WriteString(it)
		}
		b.WriteString([]string{";", ";", " ;", "; ;", ";\n"}[r.IntN(5)])
	}
	text := b.String()
	switch r.IntN(4) {
	case 0:
		text = text[:runeStart(text, r.IntN(len(text)+1))]
	case 1:
		i := runeStart(text, r.IntN(len(text)+1))
		text = text[:i] + []string{"'", `"`, "/*", "$$", "--", "`", "E'", "\\", ";"}[r.IntN(9)] + text[i:]
	}
	return text
}

// TestStatementsAsDuckDB: on random texts, the lexer cuts statements where DuckDB's own parser
// (duckdb_extract_statements) does — when DuckDB parses a text into n statements the lexer finds n, and
// each parses alone as one — and says a text ends open exactly when DuckDB calls it unterminated.
func TestStatementsAsDuckDB(t *testing.T) {
	parse := testdb.Parser(t)
	r := rand.New(rand.NewPCG(1, 2))
	lex := rules()
	checked := 0
	for range 3000 {
		text := randomText(r, lex.Backticks)
		checkAgainstDuckDB(t, parse, lex, text)
		if n, err := parse(text); err == nil && n > 0 {
			checked++
		}
	}
	if checked < 500 {
		t.Errorf("only %d of 3000 random texts parsed: the generator makes too little valid SQL", checked)
	}
}

// FuzzStatementsAsDuckDB is TestStatementsAsDuckDB's check on texts the fuzzer makes.
func FuzzStatementsAsDuckDB(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		f.Add(randomText(r, true))
	}
	parse := testdb.Parser(f)
	lex := rules()
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		checkAgainstDuckDB(t, parse, lex, text)
	})
}

func checkAgainstDuckDB(t *testing.T, parse func(string) (int, error), lex sqltext.Rules, text string) {
	t.Helper()
	n, err := parse(text)
	open := lex.EndsOpen(text)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "unterminated") && !open {
			t.Fatalf("%q: DuckDB says %q, the lexer says the text is closed", text, firstLine(msg))
		}
		return
	}
	if open {
		t.Fatalf("%q: DuckDB parses it (%d statements), the lexer says it ends open", text, n)
	}
	stmts := lex.Statements(text)
	if len(stmts) != n {
		t.Fatalf("%q: DuckDB finds %d statements, the lexer %d: %q", text, n, len(stmts), stmts)
	}
	for _, s := range stmts {
		if k, err := parse(s); err != nil || k != 1 {
			t.Fatalf("%q: the lexer's statement %q parses as %d statements (%v)", text, s, k, err)
		}
	}
}

// runeStart moves i back to the start of the UTF-8 character it falls in: invalid UTF-8 is no SQL DuckDB runs
// (2.0 refuses it, 1.5 drops a cut character at the end).
func runeStart(text string, i int) int {
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

func firstLine(s string) string { first, _, _ := strings.Cut(s, "\n"); return first }

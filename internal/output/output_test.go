package output

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/sqlnb/sqlnb/internal/testdb"
)

// TestStreamedFormats: csv, json, line and markdown are written row by row; json keeps the columns'
// order and the layout of encoding/json's indented array.
func TestStreamedFormats(t *testing.T) {
	conn := testdb.Conn(t)
	stmt := `SELECT * FROM (VALUES (2, 'b', NULL::DOUBLE, [1, 2], {'k': 'v'}), (1, 'a<', 0.5, [], NULL)) v(z, a, x, l, s)`
	for _, c := range []struct{ format, want string }{
		{"csv", "z,a,x,l,s\n2,b,,\"[1, 2]\",{'k': v}\n1,a<,0.5,[],\n"},
		{"line", "z = 2\na = b\nx = NULL\nl = [1, 2]\ns = {'k': v}\n\nz = 1\na = a<\nx = 0.5\nl = []\ns = NULL\n"},
		{"markdown", "| z | a | x | l | s |\n|---|---|---|---|---|\n| 2 | b | NULL | [1, 2] | {'k': v} |\n| 1 | a< | 0.5 | [] | NULL |\n"},
		{"json", `[
  {
    "z": 2,
    "a": "b",
    "x": null,
    "l": [
      1,
      2
    ],
    "s": {
      "k": "v"
    }
  },
  {
    "z": 1,
    "a": "a<",
    "x": 0.5,
    "l": [],
    "s": null
  }
]
`},
	} {
		rows, err := conn.QueryContext(context.Background(), stmt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteRows(&b, rows, Options{Format: c.format, MaxRows: 1}); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.format, b.String(), c.want)
		}
		if c.format == "json" && !json.Valid(b.Bytes()) {
			t.Errorf("invalid json")
		}
	}
	// CSV tells the empty string ("") from NULL (an empty field) and quotes as DuckDB's COPY does.
	rows, err := conn.QueryContext(context.Background(), `SELECT '' AS e, NULL::VARCHAR AS n, 'a,b' AS c, ' x' AS s, 'a#b' AS h, 'say "hi"' AS q`)
	if err != nil {
		t.Fatal(err)
	}
	var cb bytes.Buffer
	if err := WriteRows(&cb, rows, Options{Format: "csv", MaxRows: 1}); err != nil || cb.String() != "e,n,c,s,h,q\n\"\",,\"a,b\", x,\"a#b\",\"say \"\"hi\"\"\"\n" {
		t.Errorf("csv of '', NULL, 'a,b', ' x', 'a#b', 'say \"hi\"': %q (%v)", cb.String(), err)
	}
	// Markdown escapes '|' in headers as in cells, and writes a line break as <br>: each row stays one line
	// with one cell a column.
	rows, err = conn.QueryContext(context.Background(), "SELECT 1 AS \"a|b\", 'x\ny' AS c, 'p|q\r\nr' AS \"d\ne\"")
	if err != nil {
		t.Fatal(err)
	}
	var mb bytes.Buffer
	if err := WriteRows(&mb, rows, Options{Format: "markdown", MaxRows: 1}); err != nil || mb.String() != "| a\\|b | c | d<br>e |\n|---|---|---|\n| 1 | x<br>y | p\\|q<br>r |\n" {
		t.Errorf("markdown of \"a|b\", 'x\\ny', 'p|q\\r\\nr' AS \"d\\ne\": %q (%v)", mb.String(), err)
	}
	// DECIMAL and HUGEINT keep every digit; a STRUCT is an object (it was its text form).
	rows, err = conn.QueryContext(context.Background(), `SELECT 2.50::DECIMAL(5, 2) AS d, 123456789012345678901234567890::HUGEINT AS h,
		{'a': 0.1::DECIMAL(38, 30), 'b': [true]} AS s`)
	if err != nil {
		t.Fatal(err)
	}
	var nb bytes.Buffer
	if err := WriteRows(&nb, rows, Options{Format: "json", MaxRows: 1}); err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\n    \"d\": 2.50,\n    \"h\": 123456789012345678901234567890,\n    \"s\": {\n      \"a\": 0.100000000000000000000000000000,\n      \"b\": [\n        true\n      ]\n    }\n  }\n]\n"; nb.String() != want {
		t.Errorf("json numbers and struct:\n got %q\nwant %q", nb.String(), want)
	}
	// An empty result.
	rows, _ = conn.QueryContext(context.Background(), "SELECT 1 AS a WHERE false")
	var b bytes.Buffer
	if err := WriteRows(&b, rows, Options{Format: "json", MaxRows: 0}); err != nil || b.String() != "[]\n" {
		t.Errorf("empty json: %q, %v", b.String(), err)
	}
}

// TestParseNestedType: the shapes of the types DuckDB prints; what it cannot read is a plain type.
func TestParseNestedType(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{`INTEGER`, ``},
		{`DECIMAL(18,3)`, ``},
		{`ENUM('a,b', 'c)')`, ``},
		{`STRUCT("b" INTEGER, a VARCHAR)`, `STRUCT{b:,a:}`},
		{`STRUCT("x ""y" DECIMAL(9,2), "z" MAP(VARCHAR, STRUCT(q INTEGER, p INTEGER)[]))[]`, `LIST{STRUCT{x "y:,z:MAP{,LIST{STRUCT{q:,p:}}}}}`},
		{`INTEGER[3][]`, `LIST{LIST{}}`},
		{`UNION(num INTEGER, str VARCHAR)`, `UNION{num:,str:}`},
		{`STRUCT(a INTEGER`, ``},
		{``, ``},
	} {
		if got := shapeString(parseNestedType(c.in)); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

func shapeString(t *nestedType) string {
	if t.kind == "" {
		return ""
	}
	parts := make([]string, len(t.fields))
	for i, f := range t.fields {
		if i < len(t.names) {
			parts[i] = t.names[i] + ":"
		}
		parts[i] += shapeString(f)
	}
	return t.kind + "{" + strings.Join(parts, ",") + "}"
}

// FuzzParseNestedType: any text parses without a panic.
func FuzzParseNestedType(f *testing.F) {
	f.Add(`STRUCT("x ""y" DECIMAL(9,2), "z" MAP(VARCHAR, STRUCT(q INTEGER, p INTEGER)[]))[]`)
	f.Fuzz(func(t *testing.T, s string) { parseNestedType(s) })
}

// TestTableFitsTerminal: on a terminal a table is cut to its width, the widest column first, with "…" where
// a value was cut; elsewhere (a file, a pipe) values are whole.
func TestTableFitsTerminal(t *testing.T) {
	var out bytes.Buffer
	rw, err := newResultWriter(&out, Options{Format: "table", MaxRows: 40}, []string{"id", "long", "z"}, []string{"INTEGER", "VARCHAR", "VARCHAR"})
	if err != nil {
		t.Fatal(err)
	}
	rw.maxWidth = 40
	long := strings.Repeat("abcdefghij", 20)
	if err := rw.row([]any{int32(1), long, "x"}); err != nil {
		t.Fatal(err)
	}
	if err := rw.close(); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if w := text.RuneWidthWithoutEscSequences(line); w > 40 {
			t.Errorf("a line of %d columns: %q", w, line)
		}
	}
	if !strings.Contains(out.String(), "│ 1       │ abcdefghij") || !strings.Contains(out.String(), "… │ x ") || !strings.Contains(out.String(), "│ integer │") {
		t.Errorf("the table:\n%s", out.String())
	}
}

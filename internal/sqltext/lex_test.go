package sqltext

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// show writes the tokens of text as kind:text (s space, c comment, w word, q quoted name, l string, n
// number, p parameter, o operator), an open token marked with a trailing !.
func show(r Rules, text string) string {
	var out []string
	for t := range r.Tokens(text) {
		open := ""
		if t.Open {
			open = "!"
		}
		out = append(out, fmt.Sprintf("%c:%s%s", "scwqlnpo"[t.Kind], t.Text, open))
	}
	return strings.Join(out, " ")
}

// TestRules: the shared rules, case by case, as DuckDB 2.0 and 1.5.6 read them (doc.go; each case was run on
// both lines).
func TestRules(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"words and operators", `SELECT a::INT, b := 1`, `w:SELECT s:  w:a o::: w:INT o:, s:  w:b s:  o::= s:  n:1`},
		{"arrow", `f(b=>0.0)`, `w:f o:( w:b o:=> n:0.0 o:)`},
		{"arrow before a sign", `f(b =>-1)`, `w:f o:( w:b s:  o:=> o:- n:1 o:)`},
		{"operator with a sign kept", `a <@- b`, `w:a s:  o:<@- s:  w:b`},
		{"operator cut at a comment", "a =>--x\nb", "w:a s:  o:=> c:--x s:\n w:b"},
		{"operator cut at a block comment", `1 +/* c */2`, `n:1 s:  o:+ c:/* c */ n:2`},
		{"standard string keeps backslashes", `'a\'; 'b'`, `l:'a\' o:; s:  l:'b'`},
		{"doubled quote", `'it''s;'`, `l:'it''s;'`},
		{"escape string", `E'a\';b' e'\\'`, `l:E'a\';b' s:  l:e'\\'`},
		{"E only at a token start", `xE'a\'`, `w:xE l:'a\'`},
		{"prefixed strings", `B'01' X'ff' N'x' U&'y' U&"z"`, `l:B'01' s:  l:X'ff' s:  l:N'x' s:  l:U&'y' s:  q:U&"z"`},
		{"dollar quotes", `$$a;$$ $t$b$$c$t$ $a$ $$a$`, `l:$$a;$$ s:  l:$t$b$$c$t$ s:  l:$a$ $$a$`},
		{"dollar tag not a parameter", `$1a$ x`, `p:$1 w:a$ s:  w:x`},
		{"unicode dollar tag", `$é$;$é$`, `l:$é$;$é$`},
		{"quoted names", `"a""b" "a\" "nb"`, `q:"a""b" s:  q:"a\" s:  q:"nb"`},
		{"backticks", "`a``b;`", "q:`a``b;`"},
		{"comments", "a -- b;\rc /* d /* e; */ f */ g", "w:a s:  c:-- b; s:\r w:c s:  c:/* d /* e; */ f */ s:  w:g"},
		{"parameters", `$1, $name, ?, ?2`, `p:$1 o:, s:  p:$name o:, s:  p:? o:, s:  p:?2`},
		{"question operators", `a ?| b`, `w:a s:  o:?| s:  w:b`},
		{"unicode names", `ünï := 1`, `w:ünï s:  o::= s:  n:1`},
		{"dollar inside a word", `a$b a$$b`, `w:a$b s:  w:a$$b`},
		{"unicode spaces", "SELECT\u00a01\u3000a\u200bb", "w:SELECT s:\u00a0 n:1 s:\u3000 w:a s:\u200b w:b"},
		{"not a unicode space", "a\u2028b", "w:a\u2028b"},
		{"vertical tab", "a\vb", "w:a s:\v w:b"},
		{"numbers", `1_000 1.5 .5 1e-3 1e 1..2 1__0`, `n:1_000 s:  n:1.5 s:  n:.5 s:  n:1e-3 s:  n:1 w:e s:  n:1 o:.. n:2 s:  n:1 w:__0`},
		{"hash", `#1`, `o:# n:1`},
		{"struct literal", `{'a': 1}`, `o:{ l:'a' o:: s:  n:1 o:}`},
		{"unterminated string", `'abc`, `l:'abc!`},
		{"unterminated escape string", `E'a\'`, `l:E'a\'!`},
		{"unterminated dollar quote", `$t$ a`, `l:$t$ a!`},
		{"unterminated name", `"abc`, `q:"abc!`},
		{"unterminated comment", `/* a /* b */`, `c:/* a /* b */!`},
		{"line comment at the end is closed", `-- a`, `c:-- a`},
		{"NUL ends the text", "a;\x00b'", `w:a o:;`},
	} {
		if got := show(Default, c.text); got != c.want {
			t.Errorf("%s: Tokens(%q)\n got  %s\n want %s", c.name, c.text, got, c.want)
		}
	}
	if got, want := show(Rules{}, "`a;b`"), "o:` w:a o:; w:b o:`"; got != want {
		t.Errorf("1.5 backticks: got %s, want %s", got, want)
	}
}

// TestTokensCoverText: the tokens cover the text up to any NUL, byte for byte, in order, for texts of every
// construct cut at every byte (so every unterminated form too).
func TestTokensCoverText(t *testing.T) {
	full := "SELECT E'a\\';b', $t$x$t$, \"q\"\"r\", `s`, 1.5e3, $1 -- c\n/* d /* e */ */ 'f''g' U&\"h\" ?| ünï\u00a0;"
	for _, r := range []Rules{Default, {}} {
		for n := range len(full) + 1 {
			text := full[:n]
			var b strings.Builder
			pos := 0
			for tok := range r.Tokens(text) {
				if tok.Pos != pos || tok.Text == "" {
					t.Fatalf("%q: token %+v at %d", text, tok, pos)
				}
				b.WriteString(tok.Text)
				pos = tok.End()
			}
			if b.String() != text {
				t.Fatalf("%q: tokens give %q", text, b.String())
			}
		}
	}
}

func TestSemicolons(t *testing.T) {
	for _, c := range []struct {
		text string
		want []int
	}{
		{"a;b;", []int{1, 3}},
		{"'x;y';", []int{5}},
		{`"x;y";`, []int{5}},
		{"-- a;\n;", []int{6}},
		{"/* a; /* b; */ c; */;", []int{20}},
		{"$q$a;$q$;", []int{8}},
		{"$$a;$$;", []int{6}},
		{`E'a\';b';`, []int{8}},
		{"'it''s;';", []int{8}},
		{"SELECT $1;", []int{9}},
		{"`a;`;", []int{4}},
	} {
		if got := Semicolons(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Semicolons(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestEndsOpen(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"SELECT 1", false}, {"SELECT 'a", true}, {"SELECT 'a'", false}, {`SELECT E'a\'`, true}, {"SELECT $t$a;", true},
		{"SELECT \"a", true}, {"SELECT 1 /* a", true}, {"SELECT 1 /* a /* b */", true}, {"SELECT 1 /* a */", false},
		{"SELECT 1 -- a", false}, {"SELECT `a", true}, {"SELECT 'a'\x00'", false},
	} {
		if got := EndsOpen(c.text); got != c.want {
			t.Errorf("EndsOpen(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	for _, c := range []struct {
		text string
		sep  byte
		want []string
	}{
		{"a.b", '.', []string{"a", "b"}},
		{` "my db" . "x.y" `, '.', []string{"my db", "x.y"}},
		{`"a ""b"""`, '.', []string{`a "b"`}},
		{"main,\"s,2\", other", ',', []string{"main", "s,2", "other"}},
		{"a..b", '.', nil},
		{"a.", '.', nil},
		{"", '.', nil},
		{"my data", '.', []string{"my data"}},
		{`"open.x`, '.', []string{`"open.x`}},
		{`"a"b.c`, '.', []string{`"a"b`, "c"}},
		{"x.1y", '.', []string{"x", "1y"}},
	} {
		if got := SplitList(c.text, c.sep); !slices.Equal(got, c.want) {
			t.Errorf("SplitList(%q, %q) = %q, want %q", c.text, c.sep, got, c.want)
		}
	}
}

func TestValuesAndNames(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`'it''s'`, `it's`},
		{`E'a\'b\n\x41\101\u00e9\\'`, "a'b\nAAé\\"},
		{`$t$a'b$t$`, `a'b`},
		{`'open`, `open`},
		{`X'ff'`, `ff`},
	} {
		var got string
		for tok := range Significant(c.text) {
			got = tok.Value()
		}
		if got != c.want {
			t.Errorf("Value of %s = %q, want %q", c.text, got, c.want)
		}
	}
	if got := Literals(`FROM 'a.csv' JOIN "b""c" ON x = E'd\'e'`); !slices.Equal(got, []string{"a.csv", `b"c`, "d'e"}) {
		t.Errorf("Literals: %q", got)
	}
	for _, c := range []struct{ text, want string }{{`"a""b"`, `a"b`}, {"`a``b`", "a`b"}, {`U&"x"`, "x"}, {"Ab", "Ab"}, {"'s'", ""}} {
		var got string
		for tok := range Significant(c.text) {
			got = tok.Name()
		}
		if got != c.want {
			t.Errorf("Name of %s = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestStatementsCut(t *testing.T) {
	got := Statements("SELECT 1; -- a;\nSELECT 'b;' /* ; */;;  \n SELECT 3")
	want := []string{"SELECT 1;", "-- a;\nSELECT 'b;' /* ; */;", "SELECT 3"}
	if !slices.Equal(got, want) {
		t.Errorf("Statements: got %q, want %q", got, want)
	}
}

func FuzzTokens(f *testing.F) {
	f.Add("SELECT E'a\\';b', $t$x$t$ -- c\n/* d */")
	f.Fuzz(func(t *testing.T, text string) {
		var b strings.Builder
		for tok := range Tokens(text) {
			b.WriteString(tok.Text)
		}
		want := text
		if i := strings.IndexByte(text, 0); i >= 0 {
			want = text[:i]
		}
		if b.String() != want {
			t.Fatalf("%q: tokens give %q", text, b.String())
		}
		_ = SplitList(text, '.')
		_ = Literals(text)
	})
}

package sqltext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Name returns the identifier t stands for: a Word as written, a closed QuotedName without its quotes and
// with its doubled quotes undone (U&"…" as written inside); "" for any other token. DuckDB compares
// identifiers without regard to case, quoted or not: compare with strings.EqualFold.
func (t Token) Name() string {
	switch {
	case t.Kind == Word:
		return t.Text
	case t.Kind == QuotedName && !t.Open:
		body := t.Text
		if body[0] == 'u' || body[0] == 'U' {
			body = body[2:]
		}
		q := body[:1]
		return strings.ReplaceAll(body[1:len(body)-1], q+q, q)
	}
	return ""
}

// Value returns the value of a String token as DuckDB reads it: a doubled quote is a quote; in E'…' a
// backslash escapes the next character (\n, \t, \b, \f, \r, octal \123, hex \x41, \u and \U code points,
// and any other character as itself); $tag$…$tag$ is its text as it is. An unterminated string gives the
// text up to the end. Other tokens give "".
func (t Token) Value() string {
	if t.Kind != String {
		return ""
	}
	s := t.Text
	if s[0] == '$' {
		tag := dollarTag(s)
		body := s[len(tag):]
		if !t.Open {
			body = body[:len(body)-len(tag)]
		}
		return body
	}
	escapes := s[0] == 'e' || s[0] == 'E'
	s = s[strings.IndexByte(s, '\'')+1:]
	if !t.Open {
		s = s[:len(s)-1]
	}
	if !escapes {
		return strings.ReplaceAll(s, "''", "'")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(s):
			i += unescape(&b, s[i+1:])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescape writes the character the escape s (after its backslash) stands for and returns how many bytes of
// s it took.
func unescape(b *strings.Builder, s string) int {
	switch c := s[0]; c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'x', 'u', 'U':
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		n := 0
		for n < width && n+1 < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[n+1]) >= 0 {
			n++
		}
		if n == 0 || c != 'x' && n != width {
			b.WriteByte(c)
			return 1
		}
		v, _ := strconv.ParseUint(s[1:1+n], 16, 32)
		if c == 'x' {
			b.WriteByte(byte(v))
		} else {
			b.WriteRune(rune(v))
		}
		return 1 + n
	default:
		if c >= '0' && c <= '7' {
			n := 1
			for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
				n++
			}
			v, _ := strconv.ParseUint(s[:n], 8, 16)
			b.WriteByte(byte(v))
			return n
		}
		_, size := utf8.DecodeRuneInString(s)
		b.WriteString(s[:size])
		return size
	}
	return 1
}

// Semicolons returns the positions of the ; of text that end statements: those outside strings, quoted
// names and comments.
func (r Rules) Semicolons(text string) []int {
	var out []int
	for t := range r.Significant(text) {
		if t.Is(";") {
			out = append(out, t.Pos)
		}
	}
	return out
}

// EndsOpen reports whether text ends inside a string, quoted name, dollar-quoted string or /* comment:
// more text can close it (a -- comment at the end is closed by the end of the line).
func (r Rules) EndsOpen(text string) bool {
	open := false
	for t := range r.Tokens(text) {
		open = t.Open
	}
	return open
}

// Statements returns the statements of text as the lexer cuts it: at each ; outside strings, quoted names
// and comments, the ; kept with its statement, blanks around it trimmed, and a piece of only blanks,
// comments and semicolons left out. DuckDB's parser cuts a text it can parse at the same places
// (TestStatementsAsDuckDB).
func (r Rules) Statements(text string) []string {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	var out []string
	start, significant := 0, false
	add := func(end int) {
		if significant {
			out = append(out, strings.TrimSpace(text[start:end]))
		}
		start, significant = end, false
	}
	for t := range r.Significant(text) {
		switch {
		case t.Is(";"):
			add(t.End())
		default:
			significant = true
		}
	}
	add(len(text))
	return out
}

// SplitList splits text at the byte sep outside quoted names, strings and comments (a qualified name at
// '.', a search path at ','), trims the parts and unquotes a part that is one quoted name ("a ""b""" is
// a "b"); nil if a part is empty.
func (r Rules) SplitList(text string, sep byte) []string {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	var parts []string
	start := 0
	cut := func(end int) bool {
		p := strings.TrimSpace(text[start:end])
		if p == "" {
			return false
		}
		parts = append(parts, unquoteName(r, p))
		start = end + 1
		return true
	}
	for t := range r.Tokens(text) {
		if t.Kind == QuotedName || t.Kind == String || t.Kind == Comment {
			continue
		}
		for k := 0; k < len(t.Text); k++ {
			if t.Text[k] == sep && !cut(t.Pos+k) {
				return nil
			}
		}
	}
	if !cut(len(text)) {
		return nil
	}
	return parts
}

// Unquote returns the name text stands for when text is one closed quoted name ("a ""b""" is a "b"), else
// text as it is.
func Unquote(text string) string { return unquoteName(Default, text) }

// unquoteName returns the name p stands for when p is one closed quoted name, else p.
func unquoteName(r Rules, p string) string {
	var only Token
	n := 0
	for t := range r.Tokens(p) {
		only = t
		n++
	}
	if n == 1 && only.Kind == QuotedName && !only.Open {
		return only.Name()
	}
	return p
}

// SplitList is Rules.SplitList under the Default rules.
func SplitList(text string, sep byte) []string { return Default.SplitList(text, sep) }

// Semicolons is Rules.Semicolons under the Default rules.
func Semicolons(text string) []int { return Default.Semicolons(text) }

// EndsOpen is Rules.EndsOpen under the Default rules.
func EndsOpen(text string) bool { return Default.EndsOpen(text) }

// Statements is Rules.Statements under the Default rules.
func Statements(text string) []string { return Default.Statements(text) }

// Literals returns the values of the strings (Token.Value) and the names of the quoted names (Token.Name)
// of text, in order: DuckDB reads a file named either way (FROM 'data.csv', and a view's SQL as DuckDB
// stores it: FROM "data.csv").
func Literals(text string) []string {
	var out []string
	for t := range Significant(text) {
		switch t.Kind {
		case String:
			out = append(out, t.Value())
		case QuotedName:
			if t.Open {
				out = append(out, t.Text[1:])
			} else {
				out = append(out, t.Name())
			}
		}
	}
	return out
}

package sqltext

import (
	"iter"
	"strings"
	"unicode/utf8"
)

// Kind is the class of a token.
type Kind uint8

const (
	// Space is a run of blanks: space, \t, \n, \r, \f, \v and the Unicode spaces DuckDB reads as blanks
	// (unicodeSpace).
	Space Kind = iota
	// Comment is -- up to the end of the line (\n or \r, not included) or a /* … */ comment; block
	// comments nest.
	Comment
	// Word is an identifier or keyword: a letter, _ or any byte of a multi-byte UTF-8 character, then
	// those, digits and $.
	Word
	// QuotedName is a quoted identifier: "…" (U&"…" too), and with Rules.Backticks `…`; the quote is
	// doubled inside.
	QuotedName
	// String is a string constant: '…' (a quote doubled inside; a backslash is a backslash), E'…' (also
	// \' and the other backslash escapes), B'…', X'…', N'…', U&'…', and $tag$…$tag$ (no escapes at all).
	String
	// Number is a numeric constant: 1, 1_000, 1.5, .5, 1e-3 (no sign: -1 is an operator and a number).
	Number
	// Param is a parameter: $1, ?1, ? and $name.
	Param
	// Op is an operator or punctuation: a run of the operator characters ~ ! @ ^ & | ` + - * / % < > =
	// (cut before a comment start and, as PostgreSQL does, without trailing + and -), or one of
	// , ( ) [ ] { } ; . .. : :: := and any other byte on its own.
	Op
)

var kindNames = [...]string{"space", "comment", "word", "quoted name", "string", "number", "param", "op"}

func (k Kind) String() string { return kindNames[k] }

// Token is one token of SQL text.
type Token struct {
	Kind Kind
	// Text is the token as written, quotes, prefixes and comment marks included.
	Text string
	// Pos is the byte offset of the token in the text.
	Pos int
	// Open reports that the text ends inside the token: a string, quoted name or /* comment that is not
	// closed (DuckDB's parser reports "unterminated ...").
	Open bool
}

// End returns the byte offset after the token.
func (t Token) End() int { return t.Pos + len(t.Text) }

// Is reports whether t is the operator or punctuation op.
func (t Token) Is(op string) bool { return t.Kind == Op && t.Text == op }

// Rules are the lexical rules that differ between DuckDB's release lines (package duckdbline): Backticks,
// `name` as a quoted identifier (DuckDB 2.0; in 1.5 ` is an operator character).
type Rules struct {
	Backticks bool
}

// Default are the rules of DuckDB 2.0, sqlnb's primary line.
var Default = Rules{Backticks: true}

// Tokens returns the tokens of text under the Default rules.
func Tokens(text string) iter.Seq[Token] { return Default.Tokens(text) }

// Significant returns the tokens of text other than Space and Comment under the Default rules.
func Significant(text string) iter.Seq[Token] { return Default.Significant(text) }

// Tokens returns the tokens of text, every byte in exactly one, in order; the text ends at a NUL byte, as
// DuckDB reads it (a C string). Unterminated strings, names and comments run to the end (Open). The tokens
// are yielded one by one, not collected: a text of many megabytes is read in place.
func (r Rules) Tokens(text string) iter.Seq[Token] {
	return func(yield func(Token) bool) {
		if i := strings.IndexByte(text, 0); i >= 0 {
			text = text[:i]
		}
		for i := 0; i < len(text); {
			kind, end, open := r.scan(text, i)
			if !yield(Token{Kind: kind, Text: text[i:end], Pos: i, Open: open}) {
				return
			}
			i = end
		}
	}
}

// Significant returns the tokens of text other than Space and Comment.
func (r Rules) Significant(text string) iter.Seq[Token] {
	return func(yield func(Token) bool) {
		for t := range r.Tokens(text) {
			if t.Kind != Space && t.Kind != Comment && !yield(t) {
				return
			}
		}
	}
}

// opChars are the characters of DuckDB's multi-character operators (scan.l's op_chars; ` only where it
// does not quote a name). # is not among them: DuckDB reads #1 as a column position.
const opChars = "~!@^&|`+-*/%<>="

// scan reads the token that starts at text[i]: its kind, the position after it, and whether the text
// ends inside it.
func (r Rules) scan(text string, i int) (Kind, int, bool) {
	c := text[i]
	switch {
	case isBlank(c) || unicodeSpace(text[i:]) > 0:
		j := i
		for j < len(text) {
			if isBlank(text[j]) {
				j++
			} else if n := unicodeSpace(text[j:]); n > 0 {
				j += n
			} else {
				break
			}
		}
		return Space, j, false
	case strings.HasPrefix(text[i:], "--"):
		if j := strings.IndexAny(text[i:], "\n\r"); j >= 0 {
			return Comment, i + j, false
		}
		return Comment, len(text), false
	case strings.HasPrefix(text[i:], "/*"):
		end, open := blockCommentEnd(text, i)
		return Comment, end, open
	case c == '\'':
		end, open := quoteEnd(text, i+1, '\'', false)
		return String, end, open
	case c == '"':
		end, open := quoteEnd(text, i+1, '"', false)
		return QuotedName, end, open
	case c == '`' && r.Backticks:
		end, open := quoteEnd(text, i+1, '`', false)
		return QuotedName, end, open
	case c == '$':
		if tag := dollarTag(text[i:]); tag != "" {
			if j := strings.Index(text[i+len(tag):], tag); j >= 0 {
				return String, i + len(tag) + j + len(tag), false
			}
			return String, len(text), true
		}
		j := i + 1
		if j < len(text) && isDigit(text[j]) {
			return Param, digitsEnd(text, j), false
		}
		if j = identEnd(text, j); j > i+1 {
			return Param, j, false
		}
		return Op, i + 1, false
	case c == '?':
		if i+1 < len(text) && isDigit(text[i+1]) {
			return Param, digitsEnd(text, i+1), false
		}
		for _, op := range []string{"?-|", "?||", "?|", "?&", "?-"} { // the multi-character operators that start with ?
			if strings.HasPrefix(text[i:], op) {
				return Op, i + len(op), false
			}
		}
		return Param, i + 1, false
	case isIdentStart(c):
		if j, ok := prefixedQuote(text, i); ok {
			q := text[j]
			escapes := j == i+1 && (c == 'e' || c == 'E')
			end, open := quoteEnd(text, j+1, q, escapes)
			if q == '"' {
				return QuotedName, end, open
			}
			return String, end, open
		}
		return Word, identEnd(text, i+1), false
	case isDigit(c) || c == '.' && i+1 < len(text) && isDigit(text[i+1]):
		return Number, numberEnd(text, i), false
	case c == ':':
		if i+1 < len(text) && (text[i+1] == '=' || text[i+1] == ':') {
			return Op, i + 2, false
		}
		return Op, i + 1, false
	case c == '.':
		if strings.HasPrefix(text[i:], "..") {
			return Op, i + 2, false
		}
		return Op, i + 1, false
	case strings.IndexByte(opChars, c) >= 0:
		return Op, r.operatorEnd(text, i), false
	}
	return Op, i + 1, false // , ( ) [ ] { } ; # \ and any other byte, one each
}

// operatorEnd returns the end of the operator that starts at text[i] (scan.l's {operator} rule): the run of
// operator characters, cut before -- or /*, and before a ?; then without trailing + and - unless the
// operator holds one of ~ ! @ ^ & | ` ? % (so that =>-1 is =>, -, 1).
func (r Rules) operatorEnd(text string, i int) int {
	j := i + 1
	for j < len(text) && isOpChar(text[j], r.Backticks) && !strings.HasPrefix(text[j:], "--") && !strings.HasPrefix(text[j:], "/*") {
		j++
	}
	for j > i+1 && (text[j-1] == '+' || text[j-1] == '-') && !strings.ContainsAny(text[i:j-1], "~!@^&|`?%") {
		j--
	}
	return j
}

func isOpChar(c byte, backticks bool) bool {
	return strings.IndexByte(opChars, c) >= 0 && !(backticks && c == '`')
}

// prefixedQuote reports whether the word at text[i] is a string or name prefix: E, B, X or N before a
// quote, or U& before a quote or double quote. It returns the position of the quote.
func prefixedQuote(text string, i int) (int, bool) {
	switch c := text[i]; {
	case strings.IndexByte("eEbBxXnN", c) >= 0 && i+1 < len(text) && text[i+1] == '\'':
		return i + 1, true
	case (c == 'u' || c == 'U') && i+2 < len(text) && text[i+1] == '&' && (text[i+2] == '\'' || text[i+2] == '"'):
		return i + 2, true
	}
	return 0, false
}

// blockCommentEnd returns the position after the /* … */ comment that starts at i (comments nest), and
// whether the text ends inside it.
func blockCommentEnd(text string, i int) (int, bool) {
	depth := 0
	for i < len(text) {
		switch {
		case strings.HasPrefix(text[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(text[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i, false
			}
		default:
			i++
		}
	}
	return len(text), true
}

// quoteEnd returns the position after the quote q that closes a string or name whose text starts at i (a
// doubled quote is a quote; with escapes, a backslash escapes the next byte), and whether the text ends
// before it.
func quoteEnd(text string, i int, q byte, escapes bool) (int, bool) {
	for i < len(text) {
		switch {
		case escapes && text[i] == '\\':
			i += 2
		case text[i] == q && i+1 < len(text) && text[i+1] == q:
			i += 2
		case text[i] == q:
			return i + 1, false
		default:
			i++
		}
	}
	return len(text), true
}

// numberEnd returns the end of the number at text[i]: digits (single underscores between them), a decimal
// point and more, then an exponent if digits follow the e (1e alone is 1 and the word e, as DuckDB 1.5
// reads it), and not the first dot of .. (1..2 is 1, .., 2).
func numberEnd(text string, i int) int {
	j := i
	if isDigit(text[j]) {
		j = digitsEnd(text, j)
	}
	if j < len(text) && text[j] == '.' && !strings.HasPrefix(text[j:], "..") {
		j++
		if j < len(text) && isDigit(text[j]) {
			j = digitsEnd(text, j)
		}
	}
	if j < len(text) && (text[j] == 'e' || text[j] == 'E') {
		k := j + 1
		if k < len(text) && (text[k] == '+' || text[k] == '-') {
			k++
		}
		if k < len(text) && isDigit(text[k]) {
			j = digitsEnd(text, k)
		}
	}
	return j
}

// digitsEnd returns the end of the digits at text[i], single underscores between digits included.
func digitsEnd(text string, i int) int {
	for i < len(text) {
		if isDigit(text[i]) {
			i++
		} else if text[i] == '_' && i+1 < len(text) && isDigit(text[i+1]) && i > 0 && isDigit(text[i-1]) {
			i++
		} else {
			break
		}
	}
	return i
}

// dollarTag returns the $tag$ (or $$) that s starts with, or "": the tag is an identifier without $.
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		if s[j] == '$' {
			return s[:j+1]
		}
		if !isIdentCont(s[j]) || j == 1 && isDigit(s[j]) {
			return ""
		}
	}
	return ""
}

// identEnd returns the end of the identifier characters from text[i] on (a Unicode space ends them, as
// DuckDB reads it as a blank).
func identEnd(text string, i int) int {
	for i < len(text) && isIdentCont(text[i]) && unicodeSpace(text[i:]) == 0 {
		i++
	}
	return i
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart reports whether c can start an identifier: an ASCII letter, _ or any byte of a multi-byte
// UTF-8 character (scan.l's ident_start, [A-Za-z\200-\377_]).
func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// isIdentCont reports whether c can continue an identifier: isIdentStart, a digit or $ (scan.l's
// ident_cont).
func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// IsWordByte reports whether c can be part of an unquoted identifier: an ASCII letter or digit, _, $ or any
// byte of a multi-byte UTF-8 character. A name written in text is a word of its own when the bytes around
// it are not word bytes.
func IsWordByte(c byte) bool { return isIdentCont(c) }

// unicodeSpace returns the length of the Unicode space s starts with, or 0: DuckDB reads U+00A0, U+2000 to
// U+200B, U+202F, U+205F, U+3000 and U+FEFF outside strings and quoted names as blanks (others, such as
// U+1680 and U+2028, are not).
func unicodeSpace(s string) int {
	if len(s) < 2 || s[0] < 0xc2 {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case r == 0xA0, r >= 0x2000 && r <= 0x200B, r == 0x202F, r == 0x205F, r == 0x3000, r == 0xFEFF:
		return n
	}
	return 0
}

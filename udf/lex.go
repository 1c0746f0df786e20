package udf

import (
	"iter"
	"strings"
)

// tokenKind is the class of a token of SQL text (lexSQL).
type tokenKind int

const (
	tokWord   tokenKind = iota // an identifier, keyword or number: letters, digits, _ and $ after the first
	tokQuoted                  // a quoted name "…": text is the name, its doubled quotes undone
	tokString                  // a string: '…', E'…' or $tag$…$tag$ (text is left empty)
	tokParam                   // a parameter: $1 or $name (? is an operator token)
	tokOp                      // punctuation or an operator: ( ) [ ] { } , ; . : := => :: or a run of + - * / < > = ~ ! @ # % ^ & | ` ?
)

// token is one token of SQL text.
type token struct {
	kind tokenKind
	text string
}

// is reports whether t is the operator or punctuation op.
func (t token) is(op string) bool { return t.kind == tokOp && t.text == op }

// name returns t's name in lower case when t is an identifier, written plain or quoted, and "" otherwise.
// DuckDB looks functions up without regard to case, quoted or not.
func (t token) name() string {
	if t.kind == tokWord || t.kind == tokQuoted {
		return strings.ToLower(t.text)
	}
	return ""
}

// opChars are the characters of PostgreSQL's (and so DuckDB's) operators.
const opChars = "+-*/<>=~!@#%^&|`?"

// lexSQL splits SQL text into tokens the way DuckDB's scanner (PostgreSQL's scan.l) does, as far as plan
// and the named-argument check need: comments (-- … and nested /* … */) and whitespace are dropped; strings
// ('…' and E'…', a quote in them doubled, in E'…' also after a \; $tag$…$tag$), quoted names ("…", a quote
// in them doubled) and parameters are one token each; a run of operator characters is one operator, cut
// before a comment in it and, as PostgreSQL does, without trailing + and - unless it holds one of
// ~ ! @ # % ^ & | ` ? (so that b =>-1 is b, =>, -, 1). Unterminated strings, names and comments run to the
// end of the text (DuckDB's parser reports them). The text ends at a NUL byte, as DuckDB reads it (a C
// string). The tokens are yielded one by one, not collected: a text of many megabytes (an INSERT with a
// long VALUES list) is read in place.
func lexSQL(text string) iter.Seq[token] {
	return func(yield func(token) bool) {
		if i := strings.IndexByte(text, 0); i >= 0 {
			text = text[:i]
		}
		for i := 0; i < len(text); {
			t, next, ok := scan(text, i)
			if i = next; ok && !yield(t) {
				return
			}
		}
	}
}

// scan reads the token that starts at text[i] and returns it and the position after it; ok is false for
// whitespace and comments, which are no token.
func scan(text string, i int) (t token, next int, ok bool) {
	c := text[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		return t, i + 1, false
	case strings.HasPrefix(text[i:], "--"):
		if j := strings.IndexAny(text[i:], "\n\r"); j >= 0 {
			return t, i + j, false
		}
		return t, len(text), false
	case strings.HasPrefix(text[i:], "/*"):
		return t, blockCommentEnd(text, i), false
	case c == '\'':
		return token{kind: tokString}, quoteEnd(text, i+1, '\'', false), true
	case c == '"':
		j := quoteEnd(text, i+1, '"', false)
		end := j
		if j > i+1 && text[j-1] == '"' { // closed: the name ends before its closing quote
			end = j - 1
		}
		return token{kind: tokQuoted, text: strings.ReplaceAll(text[i+1:end], `""`, `"`)}, j, true
	case c == '$':
		if tag := dollarTag(text[i:]); tag != "" {
			if j := strings.Index(text[i+len(tag):], tag); j >= 0 {
				return token{kind: tokString}, i + len(tag) + j + len(tag), true
			}
			return token{kind: tokString}, len(text), true
		}
		j := i + 1
		for j < len(text) && isWord(text[j]) {
			j++
		}
		return token{kind: tokParam, text: text[i:j]}, j, true
	case isWord(c):
		j := i + 1
		for j < len(text) && (isWord(text[j]) || text[j] == '$') {
			j++
		}
		if j == i+1 && (c == 'e' || c == 'E') && j < len(text) && text[j] == '\'' { // E'…': backslash escapes
			return token{kind: tokString}, quoteEnd(text, j+1, '\'', true), true
		}
		return token{kind: tokWord, text: text[i:j]}, j, true
	case c == ':':
		n := 1
		if i+1 < len(text) && (text[i+1] == '=' || text[i+1] == ':') {
			n = 2
		}
		return token{kind: tokOp, text: text[i : i+n]}, i + n, true
	case strings.IndexByte(opChars, c) >= 0:
		j := i + 1
		for j < len(text) && strings.IndexByte(opChars, text[j]) >= 0 && !strings.HasPrefix(text[j:], "--") && !strings.HasPrefix(text[j:], "/*") {
			j++
		}
		if op := text[i:j]; len(op) > 1 && !strings.ContainsAny(op, "~!@#%^&|`?") {
			for j > i+1 && (text[j-1] == '+' || text[j-1] == '-') {
				j--
			}
		}
		return token{kind: tokOp, text: text[i:j]}, j, true
	}
	return token{kind: tokOp, text: text[i : i+1]}, i + 1, true // ( ) [ ] { } , ; . and anything else, a byte each
}

// blockCommentEnd returns the position after the /* … */ comment that starts at i; comments nest.
func blockCommentEnd(text string, i int) int {
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
				return i
			}
		default:
			i++
		}
	}
	return len(text)
}

// quoteEnd returns the position after the quote q that closes a string or name whose text starts at i (a
// doubled quote is a quote; with escapes, a backslash escapes the next byte), or len(text).
func quoteEnd(text string, i int, q byte, escapes bool) int {
	for i < len(text) {
		switch {
		case escapes && text[i] == '\\':
			i += 2
		case text[i] == q && i+1 < len(text) && text[i+1] == q:
			i += 2
		case text[i] == q:
			return i + 1
		default:
			i++
		}
	}
	return len(text)
}

// isWord reports whether b can be part of an identifier: ASCII letters, digits, _ and every byte of a
// multi-byte UTF-8 character (PostgreSQL's \200-\377).
func isWord(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// dollarTag returns the $tag$ (or $$) that s starts with, or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		if s[j] == '$' {
			return s[:j+1]
		}
		if !isWord(s[j]) || (j == 1 && s[j] >= '0' && s[j] <= '9') {
			return ""
		}
	}
	return ""
}

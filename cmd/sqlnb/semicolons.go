package main

import "strings"

// semicolons returns the positions of the ';' of SQL text that lie outside strings ('…', E'…'), quoted
// names ("…"), dollar-quoted strings ($tag$…$tag$) and comments (-- …, nested /* … */), as far as a simple
// scan can tell: the candidates sqlParser.split asks DuckDB's parser about. A construct the scan misreads
// only makes it offer a ';' too many (DuckDB's parser says no) or too few (split then leaves the rest as one
// text, which DuckDB runs as it is).
func semicolons(text string) []int {
	out, _ := scanStatements(text)
	return out
}

// endsOpen reports whether text ends inside a string, quoted name, dollar-quoted string or /* comment, as
// far as semicolons' scan can tell: more lines can complete it.
func endsOpen(text string) bool {
	_, open := scanStatements(text)
	return open
}

// scanStatements is semicolons' scan; open reports whether text ends inside a construct that needs closing.
func scanStatements(text string) (out []int, open bool) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == ';':
			out = append(out, i)
		case c == '\'':
			escapes := i > 0 && (text[i-1] == 'E' || text[i-1] == 'e')
			i = closeQuote(text, i+1, '\'', escapes)
			open = i >= len(text)
		case c == '"':
			i = closeQuote(text, i+1, '"', false)
			open = i >= len(text)
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(text)
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			depth := 0
			for ; i < len(text); i++ {
				if strings.HasPrefix(text[i:], "/*") {
					depth++
					i++
				} else if strings.HasPrefix(text[i:], "*/") {
					depth--
					i++
					if depth == 0 {
						break
					}
				}
			}
			open = depth > 0
		case c == '$':
			if tag, ok := dollarTag(text[i:]); ok {
				if j := strings.Index(text[i+len(tag):], tag); j >= 0 {
					i += len(tag) + j + len(tag) - 1
				} else {
					i, open = len(text), true
				}
			}
		}
	}
	return out, open
}

// closeQuote returns the position of the quote q that closes a string or name opened before position i (a
// doubled quote is a quote; with escapes, a backslash escapes the next byte), or len(text).
func closeQuote(text string, i int, q byte, escapes bool) int {
	for ; i < len(text); i++ {
		switch text[i] {
		case '\\':
			if escapes {
				i++
			}
		case q:
			if i+1 < len(text) && text[i+1] == q {
				i++
				continue
			}
			return i
		}
	}
	return len(text)
}

// dollarTag returns the opening $tag$ (or $$) at the start of s.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9':
		default:
			return "", false
		}
	}
	return "", false
}

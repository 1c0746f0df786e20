package main

import "strings"

// splitStatements splits SQL text into statements at semicolons outside quotes ('...', "..."), dollar
// strings ($$...$$) and comments (-- and /* */). rest is the trailing text after the last semicolon
// (an unfinished statement, possibly only whitespace and comments).
func splitStatements(text string) (stmts []string, rest string) {
	start := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(text, i, c)
		case c == '$' && strings.HasPrefix(text[i:], "$$"):
			if j := strings.Index(text[i+2:], "$$"); j >= 0 {
				i += j + 3
			} else {
				i = len(text)
			}
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(text)
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			if j := strings.Index(text[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(text)
			}
		case c == ';':
			if s := strings.TrimSpace(text[start : i+1]); s != ";" {
				stmts = append(stmts, s)
			}
			start = i + 1
		}
	}
	return stmts, text[min(start, len(text)):]
}

// skipQuoted returns the index of the quote closing the one at i (a doubled quote is an escape), or the
// end of text.
func skipQuoted(text string, i int, q byte) int {
	for j := i + 1; j < len(text); j++ {
		if text[j] == q {
			if j+1 < len(text) && text[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(text)
}

// onlyComments reports whether s holds nothing but whitespace and comments.
func onlyComments(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t != "" && !strings.HasPrefix(t, "--") {
			return false
		}
	}
	return true
}

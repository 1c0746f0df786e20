package sqltext

import "strings"

// Splitter cuts SQL text into statements with DuckDB's own parser (duckdb_extract_statements, through
// udf.Parser), so the shell and `sqlnb sql` accept exactly what DuckDB accepts: dollar-quoted strings
// ($tag$a;b$tag$), escape strings (E'a\';b'), nested /* */ comments, and whatever DuckDB's lexer learns next.
type Splitter struct {
	// Count returns how many statements DuckDB finds in text (0 for whitespace and comments), or its
	// parse error (udf.Parser).
	Count func(text string) (int, error)
	// Rules are the lexical rules of the DuckDB line that parses (udf.Lexer): where the ';' outside strings
	// and comments are, and whether text ends inside one.
	Rules Rules
}

// Sentinels are statements appended to text to learn whether text ends between statements: if it does,
// text+sentinel parses as one statement more; if text ends inside a string or an unfinished statement, it
// does not. lineSentinel starts on a new line, so a -- comment at the end of text ends before it (the
// shell's "SELECT 1; -- note" is complete); cutSentinel does not, so that a ';' inside a -- comment is not
// taken for the end of a statement.
const (
	lineSentinel = "\nSELECT 1"
	cutSentinel  = " SELECT 1"
)

// ends returns the number of statements in text and whether text ends between two statements, a -- comment
// at its end included.
func (p Splitter) ends(text string) (n int, end bool, err error) {
	return p.endsWith(text, lineSentinel)
}

func (p Splitter) endsWith(text, sentinel string) (n int, end bool, err error) {
	if n, err = p.Count(text); err != nil {
		return 0, false, err
	}
	m, err := p.Count(text + sentinel)
	return n, err == nil && m == n+1, nil
}

// Split decides what the shell does with the text typed so far. complete is false while the text needs
// more lines: it does not yet end with a ';' that ends a statement, or it ends inside a string, quoted
// identifier or comment (Rules.EndsOpen; DuckDB 1.5's lexer also says "unterminated ...", 2.0's says so
// except for a dollar-quoted string, "syntax error at or near"). A complete text is either cut into its statements (a comment goes with the statement after it; a text of only
// comments has none), or, when DuckDB cannot parse it, returned with the parse error, and then none of its
// statements runs (as with DuckDB itself and `sqlnb sql -c`).
func (p Splitter) Split(text string) (stmts []string, complete bool, err error) {
	n, end, err := p.ends(text)
	switch {
	case err != nil:
		if p.Rules.EndsOpen(text) || strings.Contains(err.Error(), "unterminated") || !strings.HasSuffix(strings.TrimSpace(text), ";") {
			return nil, false, nil
		}
		return nil, true, err
	case !end:
		return nil, false, nil
	}
	// The whole text parses, so each statement parses alone: cut at every ';' after which the text so far
	// ends between statements. Only the ';' the lexer finds outside strings and comments are asked
	// (Rules.Semicolons): asking at every ';' parsed the text again for each one inside a long string.
	start, found := 0, 0
	for _, i := range p.Rules.Semicolons(text) {
		if found >= n {
			break
		}
		k, end, err := p.endsWith(text[start:i+1], cutSentinel)
		if err != nil || !end {
			continue // a ';' inside a string, identifier or comment
		}
		if k > 0 {
			stmts = append(stmts, strings.TrimSpace(text[start:i+1]))
		}
		start, found = i+1, found+k
	}
	if found < n { // not expected: DuckDB runs what is left as one text
		stmts = append(stmts, strings.TrimSpace(text[start:]))
	}
	return stmts, true, nil
}

// MayComplete reports whether adding line to unfinished text can complete it: a statement ends at a
// ';', and text that ends after one inside a /* comment is completed by the */. Lines without either are
// not worth a parse (a long statement is not parsed again at each of its lines).
func MayComplete(line string) bool {
	return strings.Contains(line, ";") || strings.Contains(line, "*/")
}

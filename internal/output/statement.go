package output

import (
	"fmt"
	"regexp"
	"strings"
)

// argumentCount is the error of duckdb-go (statement.go, Stmt.bind) for a statement given fewer values than
// it has parameters; sql and the shell give none.
var argumentCount = regexp.MustCompile(`^incorrect argument count for command: have 0 want (\d+)$`)

// NoParameterValues explains argumentCount's error to a user of sql or the shell (tool): the statement has
// parameters and the tool has no way to give them values.
func NoParameterValues(err error, tool string) error {
	if err == nil {
		return nil
	}
	m := argumentCount.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	n := m[1] + " parameters"
	if m[1] == "1" {
		n = "1 parameter"
	}
	return fmt.Errorf("the statement has %s (?, $1 or $name) and %s cannot give it values: write the values in, or use "+
		"PREPARE and EXECUTE (PREPARE p AS SELECT nb_predict('model', {'x': ?}); EXECUTE p(1.5))", n, tool)
}

// quietKeywords are the first words of statements whose result DuckDB's CLI does not print: they change
// something and report a row count (Count) or nothing (Success).
var quietKeywords = map[string]bool{
	"create": true, "insert": true, "update": true, "delete": true, "copy": true, "set": true, "reset": true,
	"drop": true, "alter": true, "attach": true, "detach": true, "use": true, "begin": true, "start": true,
	"commit": true, "end": true, "rollback": true, "abort": true, "checkpoint": true, "force": true,
	"vacuum": true, "load": true, "install": true, "export": true, "import": true, "truncate": true,
	"comment": true, "prepare": true, "deallocate": true, "analyze": true, "pragma": true, "execute": true,
	"merge": true, "with": true,
}

// Quiet reports whether the result of stmt, with columns cols, is a statement's report that DuckDB's
// CLI leaves out: a single Count or Success column of a statement that changes something (INSERT …
// RETURNING, whose rows are data, is printed).
func Quiet(stmt string, cols []string) bool {
	if len(cols) != 1 || cols[0] != "Count" && cols[0] != "Success" {
		return false
	}
	return quietKeywords[firstKeyword(stmt)]
}

// firstKeyword is the first word of stmt in lower case, after comments.
func firstKeyword(stmt string) string {
	s := strings.TrimSpace(stmt)
	for {
		switch {
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = strings.TrimSpace(s[i+1:])
				continue
			}
			return ""
		case strings.HasPrefix(s, "/*"):
			if i := strings.Index(s, "*/"); i >= 0 {
				s = strings.TrimSpace(s[i+2:])
				continue
			}
			return ""
		}
		break
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		end = len(s)
	}
	return strings.ToLower(s[:end])
}

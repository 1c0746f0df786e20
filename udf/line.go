package udf

import (
	"sync"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/internal/duckdbline"
	"github.com/sqlnb/sqlnb/internal/sqltext"
)

// DuckDBLine returns the release line of the DuckDB library in this process (package duckdbline decides
// what differs between lines).
func DuckDBLine() duckdbline.Line { return hostLine() }

// Lexer returns the lexical rules of SQL text (package sqltext) of the DuckDB line in this process.
func Lexer() sqltext.Rules { return sqltext.Rules{Backticks: hostLine().BacktickNames()} }

// hostLine is the release line of the DuckDB library in this process, as it reports itself: the binary's
// own, or the host's when sqlnb runs as a loadable extension (the call goes through the host's function
// table). Every difference between the lines is decided by package duckdbline from it.
var hostLine = sync.OnceValue(func() duckdbline.Line {
	l, err := duckdbline.Parse(mapping.LibraryVersion())
	if err != nil {
		return duckdbline.Line{Major: 2} // a version sqlnb cannot read is newer than any it knows
	}
	return l
})

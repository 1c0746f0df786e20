package udf

import (
	"database/sql"
	"errors"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Parser returns a function that parses SQL text with DuckDB's own parser (duckdb_extract_statements on
// conn's connection) and returns how many statements the text holds (0 for whitespace and comments), or
// DuckDB's parse error. Parsing reads no table: a statement about a table that does not exist yet parses.
// The function must not be called while a query runs on conn.
func Parser(conn *sql.Conn) (func(text string) (int, error), error) {
	raw, err := rawConnOf(conn)
	if err != nil {
		return nil, err
	}
	return func(text string) (int, error) {
		var stmts mapping.ExtractedStatements
		n := mapping.ExtractStatements(raw, text, &stmts)
		defer mapping.DestroyExtracted(&stmts)
		if n == 0 {
			if msg := mapping.ExtractStatementsError(stmts); msg != "" {
				return 0, errors.New(msg)
			}
		}
		return int(n), nil
	}, nil
}

// Package testdb opens what the tests of several packages need: an in-memory database of package udf (the
// nb_* functions registered) and DuckDB's own statement parser on it. Tests only.
package testdb

import (
	"context"
	"database/sql"
	"testing"

	"github.com/sqlnb/sqlnb/udf"
)

// Conn opens an in-memory database with the nb_* functions and returns one connection of it, both closed
// when the test ends.
func Conn(tb testing.TB) *sql.Conn {
	tb.Helper()
	db, err := udf.Open(":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close(); db.Close() })
	return conn
}

// Parser returns DuckDB's own statement parser (udf.Parser) on an in-memory database: the number of
// statements a text holds, or DuckDB's error.
func Parser(tb testing.TB) func(string) (int, error) {
	tb.Helper()
	parse, err := udf.Parser(Conn(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return parse
}

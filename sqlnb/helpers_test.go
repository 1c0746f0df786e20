package sqlnb_test

import (
	"context"
	"database/sql"
	"math"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// mustOpenDB opens an in-memory DuckDB with a single connection (so temp objects stay visible).
func mustOpenDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustExec(tb testing.TB, db *sql.DB, stmt string, args ...any) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), stmt, args...); err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
}

func near(got, want, tol float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

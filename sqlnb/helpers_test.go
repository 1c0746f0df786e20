package sqlnb_test

import (
	"context"
	"database/sql"
	"math"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// param returns the compiled parameter of s that nb_show lists for feature, class, parameter name and
// value (a category or term; "" otherwise).
func param(tb testing.TB, s *sqlnb.Scorer, feature, class, parameter, value string) float64 {
	tb.Helper()
	for _, p := range sqlnb.Parameters(s) {
		if p.Feature == feature && p.Class == class && p.Parameter == parameter && p.Value == value {
			return p.Estimate
		}
	}
	tb.Fatalf("no parameter %s of feature %q, class %q, value %q", parameter, feature, class, value)
	return 0
}

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

func init() {
	sqlnb.OpenUDF = func(dsn string) (*sql.DB, error) {
		db, err := udf.Open(dsn)
		if err != nil {
			return nil, err
		}
		return db.DB, nil
	}
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

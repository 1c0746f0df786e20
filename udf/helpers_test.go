package udf_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// mustScorer loads model name from db and compiles it.
func mustScorer(tb testing.TB, db *udf.DB, name string) *sqlnb.Scorer {
	tb.Helper()
	m, err := sqlnb.Load(context.Background(), db, name)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// exportSQL returns the scoring script of s in dialect ("duckdb" or "postgres").
func exportSQL(tb testing.TB, s *sqlnb.Scorer, dialect string) string {
	tb.Helper()
	var b strings.Builder
	if err := sqlnb.ExportSQL(&b, s, dialect); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// mustOpenDB opens a new in-memory database with the nb_* functions registered.
func mustOpenDB(tb testing.TB) *udf.DB {
	tb.Helper()
	db, err := udf.Open("")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustExec(tb testing.TB, db *udf.DB, stmt string, args ...any) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), stmt, args...); err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
}

// queryStrings runs stmt and returns every row's columns as text (NULL as "NULL").
func queryStrings(tb testing.TB, db *udf.DB, stmt string, args ...any) [][]string {
	tb.Helper()
	out, err := queryRows(db, stmt, args...)
	if err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
	return out
}

// querier is a *udf.DB or one of its connections (*sql.Conn).
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryRows runs stmt on q and returns every row's columns as text (NULL as "NULL"), or the error.
func queryRows(q querier, stmt string, args ...any) ([][]string, error) {
	rows, err := q.QueryContext(context.Background(), stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				row[i] = "NULL"
			case float64:
				row[i] = strconv.FormatFloat(x, 'g', -1, 64)
			case []byte:
				row[i] = string(x)
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

package udf

import (
	"database/sql"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Progress returns a function that reports the progress (0–100) of the query running on conn, or -1 when
// DuckDB cannot tell. The connection must have `SET enable_progress_bar = true` (and
// enable_progress_bar_print = false to keep DuckDB from printing its own bar). The function may be called
// from another goroutine while the query runs.
func Progress(conn *sql.Conn) (func() float64, error) {
	raw, err := rawConnOf(conn)
	if err != nil {
		return nil, err
	}
	return func() float64 {
		p := mapping.QueryProgress(raw)
		pct, _, _ := mapping.QueryProgressTypeMembers(&p)
		return pct
	}, nil
}

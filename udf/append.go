package udf

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/sqlnb/sqlnb/sqlnb"
)

func init() { sqlnb.SetRowAppender(appendRows) }

// appendRows appends rows to schema.table through DuckDB's appender on conn, inside the transaction open
// on it (sqlnb.RowAppender): storing a model with millions of statistics rows takes seconds, not minutes of
// binding list parameters value by value.
func appendRows(ctx context.Context, conn *sql.Conn, schema, table string, columns []string, next func([]driver.Value) bool) error {
	return conn.Raw(func(dc any) error {
		c, ok := unwrapConn(dc)
		if !ok {
			return fmt.Errorf("append to %s.%s: connection is a %T, not DuckDB's", schema, table, dc)
		}
		a, err := duckdb.NewAppenderWithColumns(c, "", schema, table, columns)
		if err != nil {
			return fmt.Errorf("append to %s.%s: %w", schema, table, err)
		}
		row := make([]driver.Value, len(columns))
		for next(row) {
			if err := ctx.Err(); err != nil {
				_ = a.Close()
				return err
			}
			if err := a.AppendRow(row...); err != nil {
				_ = a.Close()
				return fmt.Errorf("append to %s.%s: %w", schema, table, err)
			}
		}
		return a.Close()
	})
}

// unwrapConn returns the duckdb-go connection inside a driver connection of this package.
func unwrapConn(dc any) (driver.Conn, bool) {
	if w, ok := dc.(interface{ Unwrap() driver.Conn }); ok {
		dc = w.Unwrap()
	}
	c, ok := dc.(*duckdb.Conn)
	return c, ok
}

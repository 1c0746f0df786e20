package udf_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/sqlnb/sqlnb/udf"
)

// TestBoundedPoolNestedCalls: with a bounded pool of internal connections (the loadable extension keeps 16),
// table functions that hold a connection while their queries bind scoring functions (nb_eval, nb_confusion,
// nb_train over a source that scores) all finish, however many run at once: the binds' model lookups have a
// pool of their own. With one pool, 16 concurrent nb_eval calls in the extension hung for good (each held a
// connection, and each bind waited for another).
func TestBoundedPoolNestedCalls(t *testing.T) {
	c, err := duckdb.NewConnector("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := udf.Attach(c, 4); err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE d AS SELECT (i % 3)::VARCHAR AS y, (i % 3) + sin(i) * 1.5 AS x1, cos(i * 7) * 2 + (i % 3) AS x2 FROM range(300) r(i)`,
		`CALL nb_train('g', 'd', 'y')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{`SELECT count(*) FROM nb_eval('g', 'd')`, `SELECT count(*) FROM nb_confusion('g', 'd')`,
		`SELECT count(*) FROM nb_train('h%d', 'SELECT nb_predict(''g'', t) AS y, x1 FROM d t', 'y')`}
	const calls = 12
	done := make(chan error, calls)
	for i := range calls {
		go func() {
			q := queries[i%len(queries)]
			if i%len(queries) == 2 {
				q = fmt.Sprintf(q, i)
			}
			var n int64
			done <- db.QueryRowContext(ctx, q).Scan(&n)
		}()
	}
	timeout := time.After(2 * time.Minute)
	for range calls {
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-timeout:
			t.Fatal("concurrent nested calls on a bounded pool did not finish in 2 minutes (deadlock)")
		}
	}
}

package udf_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestOutOfMemoryIsAnError: an allocation DuckDB refuses inside a scoring callback (memory_limit reached while
// reserving a chunk's MAPs: 2048 rows × 2000 classes) fails the query with DuckDB's out-of-memory message; the
// exception used to cross Go's frames and abort the process (SIGABRT, "terminate called after throwing an
// instance of 'duckdb::OutOfMemoryException'"). The connection and the model stay usable.
func TestOutOfMemoryIsAnError(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE big AS SELECT 'c' || (i % 2000) AS y, (i % 2000) * 1.0 + (i % 7) * 0.01 AS x FROM range(4000) r(i)`)
	mustExec(t, db, `CALL nb_train('many', 'big', 'y', force := true)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range []string{`SET memory_limit = '40MB'`, `SET threads = 1`, fmt.Sprintf(`SET temp_directory = '%s'`, t.TempDir())} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	_, err = conn.ExecContext(ctx, `CREATE TEMP TABLE p AS SELECT nb_predict_proba('many', {'x': x}) AS p FROM big`)
	if err == nil || !strings.Contains(err.Error(), "nb_predict_proba: Out of Memory Error: failed to allocate") {
		t.Fatalf("want DuckDB's out-of-memory error, got %v", err)
	}
	if _, err := conn.ExecContext(ctx, `SET memory_limit = '4GB'`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(nb_predict_proba('many', {'x': x})) FROM big`).Scan(&n); err != nil || n != 4000 {
		t.Fatalf("after the error: %d rows, %v", n, err)
	}
}

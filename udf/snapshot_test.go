package udf_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/udf"
)

// snapshotWriters are the ways another connection commits a new version of model m (rows d1, d2 of the
// table d): each changes what m predicts for the probe row, so scoring with the newer version shows.
var snapshotWriters = []struct {
	name  string
	write func(i int) string // the statement of the i-th commit
}{
	{"retrain", func(i int) string { return fmt.Sprintf(`CALL nb_train('m', 'd%d', 'y')`, 1+(i+1)%2) }},
	{"nb_set", func(i int) string { return fmt.Sprintf(`CALL nb_set('m', alpha := %d)`, 2+i) }},
	{"append", func(int) string { return `CALL nb_train('m', 'd2', 'y', append := true)` }},
	{"forget", func(i int) string { return fmt.Sprintf(`CALL nb_forget('m', 'd1_%d', 'y')`, i) }},
	{"merge", func(i int) string {
		return fmt.Sprintf(`CALL nb_merge('m', ['m', 'part%d'], replace := true)`, i)
	}},
}

// TestTransactionKeepsItsVersion: a transaction that scored model m keeps scoring the version its snapshot
// sees while another connection commits five new versions of it — by retraining, nb_set, appending,
// forgetting and merging — as it keeps seeing DuckDB's own tables as they were; a new transaction then
// sees the newest. Deterministic: no race is needed, the commits happen between the transaction's
// statements.
func TestTransactionKeepsItsVersion(t *testing.T) {
	db, err := openFile(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d1 AS SELECT i, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, CASE WHEN i % 2 = 0 THEN 1.0 ELSE 5.0 END + sin(i) AS x,
		CASE WHEN (i % 2 = 0) = (i % 5 <> 0) THEN 'u' ELSE 'v' END AS c FROM range(300) r(i)`)
	mustExec(t, db, `CREATE TABLE d2 AS SELECT i, CASE WHEN i % 2 = 0 THEN 'b' ELSE 'a' END AS y, CASE WHEN i % 2 = 0 THEN 1.5 ELSE 4.0 END + cos(i) AS x,
		CASE WHEN (i % 2 = 0) = (i % 3 <> 0) THEN 'v' ELSE 'u' END AS c FROM range(301) r(i)`)
	for i := range 5 {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE d1_%d AS SELECT y, x, c FROM d1 WHERE i %% 10 = %d`, i, i))
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE d2_%d AS SELECT y, x, c FROM d2 WHERE i %% 5 = %d`, i, i))
		mustExec(t, db, fmt.Sprintf(`CALL nb_train('part%d', 'd2_%d', 'y')`, i, i))
	}
	mustExec(t, db, `ALTER TABLE d1 DROP COLUMN i`)
	mustExec(t, db, `ALTER TABLE d2 DROP COLUMN i`)
	probe := `SELECT nb_predict_proba('m', {'x': 2.0, 'c': 'u'})::VARCHAR || ' ' || nb_joint_log_likelihood('m', {'x': 2.0, 'c': 'u'})::VARCHAR`
	for _, w := range snapshotWriters {
		t.Run(w.name, func(t *testing.T) {
			mustExec(t, db, `CALL nb_train('m', 'd1', 'y')`)
			reader, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer reader.Close()
			score := func() string {
				t.Helper()
				var s, eval, show string
				if err := reader.QueryRowContext(ctx, probe).Scan(&s); err != nil {
					t.Fatalf("scoring in the transaction: %v", err)
				}
				// The table functions that read a model bind the version of their caller's snapshot too.
				if err := reader.QueryRowContext(ctx, `SELECT value::VARCHAR FROM nb_eval('m', 'd1') WHERE metric = 'log_loss'`).Scan(&eval); err != nil {
					t.Fatalf("nb_eval in the transaction: %v", err)
				}
				if err := reader.QueryRowContext(ctx, `SELECT count(*) || ' ' || sum(estimate) FROM nb_show('m')`).Scan(&show); err != nil {
					t.Fatalf("nb_show in the transaction: %v", err)
				}
				return s + " | " + eval + " | " + show
			}
			if _, err := reader.ExecContext(ctx, `BEGIN`); err != nil {
				t.Fatal(err)
			}
			defer reader.ExecContext(ctx, `ROLLBACK`) // after a failure: the connection goes back to the pool
			first := score()
			var rowsBefore string
			if err := reader.QueryRowContext(ctx, `SELECT n_rows::VARCHAR || ' ' || (params::JSON->>'alpha') FROM nb.models WHERE name = 'm'`).Scan(&rowsBefore); err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				mustExec(t, db, w.write(i))
				if got := score(); got != first {
					t.Fatalf("after commit %d (%s) the transaction scored %s, it scored %s before", i+1, w.write(i), got, first)
				}
			}
			var rowsAfter string
			if err := reader.QueryRowContext(ctx, `SELECT n_rows::VARCHAR || ' ' || (params::JSON->>'alpha') FROM nb.models WHERE name = 'm'`).Scan(&rowsAfter); err != nil || rowsAfter != rowsBefore {
				t.Fatalf("DuckDB's own tables in the transaction: rows %s, then %s (%v)", rowsBefore, rowsAfter, err)
			}
			if _, err := reader.ExecContext(ctx, `COMMIT`); err != nil {
				t.Fatal(err)
			}
			newest := one(t, db, probe) + " | " + one(t, db, `SELECT value::VARCHAR FROM nb_eval('m', 'd1') WHERE metric = 'log_loss'`) +
				" | " + one(t, db, `SELECT count(*) || ' ' || sum(estimate) FROM nb_show('m')`)
			if newest == first {
				t.Fatalf("the five commits did not change the model's scores (%s): the test shows nothing", first)
			}
			if got := score(); got != newest {
				t.Errorf("a new transaction scored %s, the newest version scores %s", got, newest)
			}
		})
	}
}

// TestSnapshotVersionGone: a transaction whose snapshot sees no version sqlnb holds — here one that began
// before the model was stored — gets an error naming the model and saying to retry, never the newer model;
// after it ends, the model scores.
func TestSnapshotVersionGone(t *testing.T) {
	db, err := openFile(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, (i % 2) + sin(i) AS x FROM range(100) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 'd', 'y')`)
	// A transaction that began before model n was stored sees no n: an error, never the newer model.
	reader, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.ExecContext(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.ExecContext(ctx, `SELECT count(*) FROM d`); err != nil { // the snapshot starts
		t.Fatal(err)
	}
	mustExec(t, db, `CALL nb_train('n', 'd', 'y')`)
	_, err = reader.ExecContext(ctx, `SELECT nb_predict('n', {'x': 1.0})`)
	if err == nil || !strings.Contains(err.Error(), `model "n"`) || !strings.Contains(err.Error(), "run the statement again") {
		t.Errorf("a model stored after the transaction began: %v; want an error naming it and saying to retry", err)
	}
	if _, err := reader.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if got := one(t, db, `SELECT nb_predict('n', {'x': 1.0})`); got != "b" {
		t.Errorf("after the transaction: %s", got)
	}
}

// TestConcurrentLoadsShareOne: eight statements that bind a version no one has loaded yet, at once, load it
// once (the first load is held until the others are waiting), and the cache holds it once; after five
// retrains scored on four connections, the cache holds each version at most once.
func TestConcurrentLoadsShareOne(t *testing.T) {
	db, err := openFile(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE d AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, (i % 2) + sin(i) AS x FROM range(100) r(i)`)
	mustExec(t, db, `CALL nb_train('m', 'd', 'y')`)
	var loads atomic.Int64
	udf.SetBeforeLoad(db, func() {
		loads.Add(1)
		time.Sleep(300 * time.Millisecond) // the other binds arrive meanwhile
	})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s string
			errs <- db.QueryRowContext(ctx, `SELECT nb_predict('m', {'x': 1.0})`).Scan(&s)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	udf.SetBeforeLoad(db, nil)
	if n := loads.Load(); n != 1 {
		t.Errorf("8 concurrent binds of one version loaded it %d times, want 1", n)
	}
	if v := udf.CachedVersions(db, "m"); len(v) != 1 {
		t.Errorf("cache holds %v, want the one version", v)
	}
	for i := range 5 {
		mustExec(t, db, fmt.Sprintf(`CALL nb_train('m', '(SELECT * FROM d WHERE x > %d)', 'y')`, -i-1))
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = db.ExecContext(ctx, `SELECT nb_predict('m', {'x': 1.0})`)
			}()
		}
		wg.Wait()
	}
	seen := map[string]bool{}
	for _, g := range udf.CachedVersions(db, "m") {
		if seen[g] {
			t.Errorf("the cache holds version %s twice: %v", g, udf.CachedVersions(db, "m"))
		}
		seen[g] = true
	}
}

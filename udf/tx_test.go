package udf_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/udf"
)

// TestWritersRefuseExplicitTransactions: nb_train (also append := true), nb_forget, nb_merge, nb_drop, nb_set
// and nb_import work on sqlnb's own connection and commit at once, so inside the caller's BEGIN … they refuse
// (as SQL text, in one statement list, and through database/sql's BeginTx) and nothing is stored; after COMMIT
// or ROLLBACK they work.
func TestWritersRefuseExplicitTransactions(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	mustExec(t, db, `CREATE TABLE t AS SELECT * FROM (VALUES ('a', 1.0), ('b', 2.0), ('a', 1.5)) v(y, x)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string) error { _, err := conn.ExecContext(ctx, q); return err }
	refused := func(err error) bool {
		return err != nil && strings.Contains(err.Error(), "cannot run inside an explicit transaction")
	}
	if err := exec(`BEGIN`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CALL nb_train('rb', 't', 'y')`, `CALL nb_drop('x')`, `CALL nb_set('x', alpha := 2)`, `CALL nb_import('x.json')`,
		`CALL nb_train('x', 't', 'y', append := true)`, `CALL nb_forget('x', 't', 'y')`, `CALL nb_merge('x', ['a', 'b'])`} {
		if err := exec(q); !refused(err) {
			t.Errorf("%s inside BEGIN: %v", q, err)
		}
		_ = exec(`ROLLBACK`)
		_ = exec(`BEGIN`)
	}
	if err := exec(`ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CALL nb_train('rb', 't', 'y')`, `CALL nb_forget('x', 't', 'y')`, `CALL nb_merge('x', ['a', 'b'])`} {
		if err := exec(`BEGIN; ` + q + `; ROLLBACK;`); !refused(err) {
			t.Errorf("BEGIN; %s; ROLLBACK; → %v", q, err)
		}
	}
	// Refused before anything ran: no transaction is left open.
	if err := exec(`SELECT 1`); err != nil {
		t.Errorf("after the refused list: %v", err)
	}
	if got := queryStrings(t, db, `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'nb'`); got[0][0] != "0" {
		t.Errorf("a refused training stored something: %v", got)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `CALL nb_train('rb', 't', 'y')`); !refused(err) {
		t.Errorf("nb_train in a database/sql transaction: %v", err)
	}
	_ = tx.Rollback()
	if err := exec(`CALL nb_train('rb', 't', 'y')`); err != nil {
		t.Errorf("after ROLLBACK: %v", err)
	}
	if err := exec(`BEGIN; SELECT 1; COMMIT; CALL nb_set('rb', alpha := 2)`); err != nil {
		t.Errorf("after COMMIT in the same list: %v", err)
	}
	if err := exec(`SELECT 'BEGIN; not a statement'; CALL nb_drop('rb')`); err != nil {
		t.Errorf("BEGIN inside a string: %v", err)
	}
}

// TestNamedArgumentsRejected: DuckDB passes arguments by position, so nb_predict_proba('m', x := 5.0, z :=
// 0.0) and ('m', z := 0.0, x := 5.0) would bind differently; they are refused with what to write instead,
// written with := or with => (DuckDB's other spelling of a named argument, which it drops the same way).
func TestNamedArgumentsRejected(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT * FROM (VALUES ('a', 1.0, 2.0), ('b', 3.0, 1.0), ('a', 1.5, 2.5), ('b', 3.5, 0.5)) v(y, x, z)`)
	mustExec(t, db, `CALL nb_train('m', 't', 'y')`)
	for _, c := range []struct{ name, q string }{
		{"colon equals", `SELECT nb_predict_proba('m', x := 5.0, z := 0.0)`},
		{"colon equals from a table", `SELECT nb_predict('m', z := 0.0, x := 5.0) FROM t`},
		{"arrow", `SELECT nb_predict('m', z => 0.0, x => 5.0)`},
		{"arrow without blanks", `SELECT nb_predict_proba('m', z=>0.0, x=>5.0) FROM t`},
		// Statements that are not a SELECT (json_serialize_sql, DuckDB's parse tree as SQL, takes SELECTs only).
		{"create table as", `CREATE TABLE out AS SELECT nb_predict('m', z := 0.0, x := 5.0) AS p`},
		{"create view", `CREATE VIEW v AS SELECT nb_predict('m', z := 0.0, x := 5.0) AS p`},
		{"create macro", `CREATE MACRO mp(a, b) AS nb_predict('m', z := b, x := a)`},
		{"prepare", `PREPARE p AS SELECT nb_predict('m', z := 0.0, x := 5.0) AS p`},
		{"insert select", `INSERT INTO t SELECT nb_predict('m', z => 0.0, x => 5.0), 1.0, 2.0`},
		{"insert values", `INSERT INTO t VALUES (nb_predict('m', z := 0.0, x := 5.0), 1.0, 2.0)`},
		{"update", `UPDATE t SET y = nb_predict('m', z := z, x := x)`},
		{"delete", `DELETE FROM t WHERE nb_predict('m', z := z, x := x) = y`},
		{"copy", `COPY (SELECT nb_predict('m', z := 0.0, x := 5.0)) TO '` + filepath.Join(t.TempDir(), "out.csv") + `'`},
		{"explain", `EXPLAIN SELECT nb_predict('m', z := 0.0, x := 5.0)`},
		{"second statement", `CREATE TABLE first AS SELECT 1 AS one; SELECT nb_predict('m', z := 0.0, x := 5.0)`},
		// Spellings of the call.
		{"upper case", `SELECT NB_PREDICT('m', Z := 0.0, X := 5.0)`},
		{"quoted name", `SELECT "nb_predict"('m', "z" := 0.0, "x" := 5.0)`},
		{"comment before the parenthesis", `SELECT nb_predict /* the label */ ('m', z := 0.0, x := 5.0)`},
		{"inside another call", `SELECT upper(nb_predict('m', z := 0.0, x := 5.0)) FROM t`},
		{"negative value", `SELECT nb_predict('m', z =>-1.0, x =>5.0)`},
	} {
		_, err := db.Exec(c.q)
		if err == nil || !strings.Contains(err.Error(), "named argument") || !strings.Contains(err.Error(), "struct") {
			t.Errorf("%s: %s: err = %v, want the named-argument error", c.name, c.q, err)
		}
		if st, err := db.Prepare(c.q); err == nil || !strings.Contains(err.Error(), "named argument") {
			if st != nil {
				st.Close()
			}
			t.Errorf("%s prepared: %s: err = %v, want the named-argument error", c.name, c.q, err)
		}
	}
	// Refused before anything ran: the table of the first statement and the objects of the others are not there.
	if got := queryStrings(t, db, `SELECT count(*) FROM duckdb_tables() WHERE table_name IN ('out', 'first')`); got[0][0] != "0" {
		t.Errorf("tables created by a refused statement: %v", got)
	}
	if got := queryStrings(t, db, `SELECT count(*) FROM duckdb_views() WHERE view_name = 'v'`); got[0][0] != "0" {
		t.Errorf("views created by a refused statement: %v", got)
	}
	if got := queryStrings(t, db, `SELECT count(*), count(*) FILTER (WHERE y IN ('a', 'b')) FROM t`); got[0][0] != "4" || got[0][1] != "4" {
		t.Errorf("rows of t after refused INSERT and UPDATE: %v, want 4 4", got)
	}
	// Named arguments elsewhere stay allowed: in a struct_pack inside the call, nb_train's options, strings,
	// comments, a function that is not a scoring one, and a CTAS that names them only in a string.
	for _, q := range []string{
		`SELECT nb_predict('m', struct_pack(z := 0.0, x := 5.0))`,
		`CREATE TABLE ok AS SELECT nb_predict('m', {'z': 0.0, 'x': 5.0}) AS p, 'nb_predict(''m'', x := 1)' AS s -- nb_predict('m', x := 1)`,
		`CREATE MACRO twice(a := 1) AS 2 * a`,
		`SELECT model FROM nb_train('m2', 't', 'y', alpha := 1)`,
		`SELECT nb_predict('m', 5.0, 0.0) /* nb_predict('m', x => 5.0) */, E'nb_predict(\'m\', x := 1)', $$nb_predict('m', x := 1)$$`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	if got := queryStrings(t, db, `SELECT nb_predict('m', {'z': 0.0, 'x': 5.0}) = nb_predict('m', struct_pack(x := 5.0, z := 0.0))`); got[0][0] != "true" {
		t.Errorf("struct arguments: %v", got)
	}
}

// TestTemporarySourceExplained: nb_train reads its source on sqlnb's own connection, which cannot see the
// caller's temporary tables: the error says so and what to do.
func TestTemporarySourceExplained(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE TEMP TABLE tt AS SELECT * FROM (VALUES ('a', 1.0), ('b', 2.0)) v(y, x)`); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, `CALL nb_train('m', 'tt', 'y')`)
	if err == nil || !strings.Contains(err.Error(), "temporary table") || !strings.Contains(err.Error(), "CREATE TABLE") {
		t.Errorf("training on a temporary table: %v", err)
	}
}

// TestMacrosAndPreparedParameters: DuckDB binds a macro's body and a prepared statement before it knows the
// types of their parameters; the scoring functions wait for the real types, so wrapping one in a macro, or
// preparing it with untyped parameters, works.
func TestMacrosAndPreparedParameters(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT * FROM (VALUES ('a', 1.0, 2.0), ('b', 3.0, 1.0), ('a', 1.5, 2.5), ('b', 3.5, 0.5)) v(y, x, z)`)
	mustExec(t, db, `CALL nb_train('m', 't', 'y')`)
	mustExec(t, db, `CREATE MACRO by_row(r) AS nb_predict('m', r)`)
	mustExec(t, db, `CREATE MACRO by_values(a, b) AS nb_predict('m', a, b)`)
	mustExec(t, db, `CREATE MACRO by_model(m, r) AS nb_predict(m, r)`)
	want := one(t, db, `SELECT string_agg(nb_predict('m', t), ',' ORDER BY x) FROM t`)
	for _, q := range []string{`SELECT string_agg(by_row(t), ',' ORDER BY x) FROM t`, `SELECT string_agg(by_values(x, z), ',' ORDER BY x) FROM t`,
		`SELECT string_agg(by_model('m', t), ',' ORDER BY x) FROM t`} {
		if got := one(t, db, q); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	stmt, err := db.Prepare(`SELECT nb_predict('m', $1, $2)`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	var got string
	if err := stmt.QueryRow(1.0, 2.0).Scan(&got); err != nil || got != "a" {
		t.Errorf("prepared with untyped parameters: %q, %v", got, err)
	}
}

// TestSourceFollowsSearchPath: a bare source name of nb_train and nb_eval is read where the caller's query
// would read it, though sqlnb reads on its own connection: along the caller's search_path (SET search_path,
// and USE, which sets it). It read main's table: nb_train counted main.g's 300 rows and 3 classes where the
// user saw s2.g's 40 rows and 2, nb_eval scored 0.333 where the user's own accuracy was 0.5 (a review). A
// name on no entry of the path is an error saying so; without a search path nothing changes.
func TestSourceFollowsSearchPath(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := udf.Open(filepath.Join(dir, "main.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, `CREATE TABLE g AS SELECT (i % 3)::VARCHAR AS y, i * 1.0 AS x FROM range(300) r(i)`)
	mustExec(t, db, `CREATE TABLE only_main AS FROM g`)
	mustExec(t, db, `CREATE SCHEMA s2`)
	mustExec(t, db, `CREATE TABLE s2.g AS SELECT (i % 2)::VARCHAR AS y, (i % 2) * 10.0 AS x FROM range(40) r(i)`)
	mustExec(t, db, `CREATE TABLE s2.données AS FROM s2.g`) // a bare name in another script
	mustExec(t, db, `ATTACH '`+filepath.Join(dir, "other.duckdb")+`' AS other`)
	mustExec(t, db, `CREATE TABLE other.g AS SELECT (i % 4)::VARCHAR AS y, i * 1.0 AS x FROM range(80) r(i)`)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	count := func(q string) (rows, classes int, err error) {
		err = conn.QueryRowContext(ctx, q).Scan(&rows, &classes)
		return
	}
	if rows, classes, err := count(`SELECT n_rows, classes FROM nb_train('m0', 'g', 'y')`); err != nil || rows != 300 || classes != 3 {
		t.Errorf("no search path: %d rows, %d classes, %v", rows, classes, err)
	}
	if _, err := conn.ExecContext(ctx, `SET search_path = 's2'`); err != nil {
		t.Fatal(err)
	}
	if rows, classes, err := count(`SELECT n_rows, classes FROM nb_train('m', 'g', 'y')`); err != nil || rows != 40 || classes != 2 {
		t.Errorf("search_path s2: %d rows, %d classes, %v", rows, classes, err)
	}
	if rows, _, err := count(`SELECT n_rows, classes FROM nb_train('m1', 'données', 'y')`); err != nil || rows != 40 {
		t.Errorf("search_path s2, données: %d rows, %v", rows, err)
	}
	var acc, byHand float64
	if err := conn.QueryRowContext(ctx, `SELECT value FROM nb_eval('m', 'g') WHERE metric = 'accuracy'`).Scan(&acc); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT avg((nb_predict('m', t) = y)::INT) FROM g t`).Scan(&byHand); err != nil || acc != byHand {
		t.Errorf("nb_eval's accuracy %v, by hand over the caller's g %v (%v)", acc, byHand, err)
	}
	_, err = conn.ExecContext(ctx, `SELECT * FROM nb_train('m2', 'only_main', 'y')`)
	if err == nil || !strings.Contains(err.Error(), "search_path") {
		t.Errorf("a name off the search path: %v", err)
	}
	if rows, _, err := count(`SELECT n_rows, classes FROM nb_train('m3', 'main.only_main', 'y')`); err != nil || rows != 300 {
		t.Errorf("the full name: %d rows, %v", rows, err)
	}
	if _, err := conn.ExecContext(ctx, `USE other`); err != nil {
		t.Fatal(err)
	}
	if rows, classes, err := count(`SELECT n_rows, classes FROM nb_train('m4', 'g', 'y')`); err != nil || rows != 80 || classes != 4 {
		t.Errorf("USE other: %d rows, %d classes, %v", rows, classes, err)
	}
}

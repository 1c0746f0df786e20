//go:build integration

package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/udf"
)

// Run by .ci/integration.sh (make test-integration), which provides the peers named by these variables.
func mustEnv(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run make test-integration", name)
	}
	return v
}

// integrationData is a mixed model's training table d and the rows s (with an id) to score: NULLs, NaN,
// infinity, unseen categories and names that need quoting.
const integrationData = `CREATE TABLE d AS SELECT CASE WHEN i % 3 = 0 THEN 'yes' WHEN i % 3 = 1 THEN 'no' ELSE 'maybe' END AS "my label",
	CASE WHEN i % 13 = 0 THEN NULL ELSE sin(i) * 3 + (i % 3) END AS "x ""quoted""",
	CASE WHEN i % 11 = 0 THEN NULL ELSE ['red', 'green', 'blue'][1 + ((i * 7) % 3)::INTEGER] END AS colour,
	(i % 4)::INTEGER AS n, i % 5 = 0 AS flag FROM range(300) r(i);
CREATE TABLE s AS SELECT row_number() OVER () AS id, * FROM (SELECT * EXCLUDE ("my label") FROM d UNION ALL
	SELECT 'nan'::DOUBLE, 'purple', 9, NULL UNION ALL SELECT NULL, NULL, NULL, NULL UNION ALL
	SELECT 'inf'::DOUBLE, 'red', 1, true UNION ALL SELECT 1.5, 'green', 7, false)`

// reference scores s with the native functions: id → predicted label and p(yes), p(no), p(maybe).
func reference(t *testing.T, dbPath string) map[int64][4]string {
	db, err := udf.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), `SELECT id, nb_predict('ex', t), nb_predict_proba('ex', t)['yes']::VARCHAR,
		nb_predict_proba('ex', t)['no']::VARCHAR, nb_predict_proba('ex', t)['maybe']::VARCHAR FROM s t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64][4]string{}
	for rows.Next() {
		var id int64
		var r [4]string
		if err := rows.Scan(&id, &r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		out[id] = r
	}
	return out
}

func sqlnbCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(mustEnv(t, "SQLNB_BIN"), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sqlnb %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func setupModel(t *testing.T) (dir, dbPath string) {
	dir = t.TempDir()
	dbPath = filepath.Join(dir, "shop.duckdb")
	sqlnbCmd(t, dir, "--db", dbPath, "sql", "-c", integrationData+"; SELECT 1")
	sqlnbCmd(t, dir, "--db", dbPath, "train", "--model", "ex", "--label", "my label", "--from", "d",
		"--feature-kind", "n=categorical", "--feature-kind", "flag=bernoulli")
	return dir, dbPath
}

func compare(t *testing.T, peer string, want map[int64][4]string, got map[int64][4]string) {
	t.Helper()
	if len(got) != len(want) || len(want) < 300 {
		t.Fatalf("%s: %d rows, want %d", peer, len(got), len(want))
	}
	worst := 0.0
	for id, w := range want {
		g := got[id]
		if g[0] != w[0] {
			t.Errorf("%s: row %d predicted %q, nb_predict %q", peer, id, g[0], w[0])
		}
		for k := 1; k < 4; k++ {
			a, err1 := strconv.ParseFloat(g[k], 64)
			b, err2 := strconv.ParseFloat(w[k], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: row %d: %q vs %q", peer, id, g[k], w[k])
			}
			worst = math.Max(worst, math.Abs(a-b))
		}
	}
	if worst > 1e-12 {
		t.Errorf("%s: max |Δ posterior| = %g, want ≤ 1e-12", peer, worst)
	}
	t.Logf("%s: %d rows, labels identical, max |Δ posterior| = %.3g", peer, len(got), worst)
}

// TestExportNodeAPI: after `sqlnb export --persist`, the npm package @duckdb/node-api (a stock DuckDB
// client without sqlnb) opens the database file and scores with the macros; the numbers equal nb_predict's.
func TestExportNodeAPI(t *testing.T) {
	nodeDir := mustEnv(t, "SQLNB_NODE_DIR")
	dir, dbPath := setupModel(t)
	sqlnbCmd(t, dir, "--db", dbPath, "export", "--model", "ex", "--persist", "--sql", filepath.Join(dir, "ex.sql"))
	want := reference(t, dbPath)
	script := filepath.Join(nodeDir, "score_test.mjs")
	if err := os.WriteFile(script, []byte(`import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(process.argv[2]);
const conn = await instance.connect();
const reader = await conn.runAndReadAll(process.argv[3]);
console.log(JSON.stringify(reader.getRowObjectsJson()));
`), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(script)
	out, err := exec.Command("node", script, dbPath, `SELECT id::VARCHAR AS id, ex_predict(t) AS pred,
		ex_predict_proba(t)['yes']::VARCHAR AS yes, ex_predict_proba(t)['no']::VARCHAR AS no, ex_predict_proba(t)['maybe']::VARCHAR AS maybe
		FROM s t ORDER BY id`).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var rows []map[string]string
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("node output: %v\n%s", err, out)
	}
	got := map[int64][4]string{}
	for _, r := range rows {
		id, _ := strconv.ParseInt(r["id"], 10, 64)
		got[id] = [4]string{r["pred"], r["yes"], r["no"], r["maybe"]}
	}
	compare(t, "@duckdb/node-api", want, got)
}

// TestExportPostgres: `sqlnb export --dialect postgres` runs on a real PostgreSQL server and scores the same
// rows (loaded through CSV) as nb_predict does.
func TestExportPostgres(t *testing.T) {
	mustEnv(t, "PGHOST")
	dir, dbPath := setupModel(t)
	pgSQL := filepath.Join(dir, "ex_pg.sql")
	csv := filepath.Join(dir, "s.csv")
	sqlnbCmd(t, dir, "--db", dbPath, "export", "--model", "ex", "--dialect", "postgres", "--sql", pgSQL)
	sqlnbCmd(t, dir, "--db", dbPath, "sql", "-c", "COPY s TO '"+csv+"' (HEADER); SELECT 1")
	want := reference(t, dbPath)
	psql := func(args ...string) string {
		out, err := exec.Command("psql", append([]string{"-X", "-v", "ON_ERROR_STOP=1", "-q"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	psql("-c", `DROP TABLE IF EXISTS s; CREATE TABLE s (id bigint, "x ""quoted""" float8, colour text, n integer, flag boolean)`)
	psql("-c", `\copy s FROM '`+csv+`' WITH (FORMAT csv, HEADER true)`)
	psql("-f", pgSQL)
	out := psql("-At", "-F", "|", "-c", `SELECT id, ex_predict(to_jsonb(t)), ex_predict_proba(to_jsonb(t))->>'yes',
		ex_predict_proba(to_jsonb(t))->>'no', ex_predict_proba(to_jsonb(t))->>'maybe' FROM s t ORDER BY id`)
	got := map[int64][4]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 5 {
			t.Fatalf("psql line %q", line)
		}
		id, _ := strconv.ParseInt(f[0], 10, 64)
		got[id] = [4]string{f[1], f[2], f[3], f[4]}
	}
	compare(t, "PostgreSQL", want, got)
}

// TestShellTmux drives `sqlnb shell` in tmux as a person would: a query, a multi-line statement, .mode csv,
// an error that does not end the session, and Ctrl-C on a long query (with its progress bar).
func TestShellTmux(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	dir := t.TempDir()
	session := "sqlnb_test_" + strconv.Itoa(os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "60",
		"env SQLNB_HISTORY="+filepath.Join(dir, "history")+" "+bin+" shell "+filepath.Join(dir, "shell.duckdb"))
	defer exec.Command("tmux", "kill-session", "-t", session).Run()
	screen := func() string { return tmux("capture-pane", "-p", "-t", session, "-S", "-300") }
	waitFor := func(text string) string {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			s := screen()
			if strings.Contains(s, text) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %q:\n%s", text, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// send types text literally, then presses keys. tmux reads an argument ending in ';' as its own command
	// separator, so a final ';' is typed as the escaped key \;.
	send := func(text string, keys ...string) {
		semi := strings.HasSuffix(text, ";")
		text = strings.TrimSuffix(text, ";")
		if text != "" {
			tmux("send-keys", "-t", session, "-l", text)
		}
		if semi {
			tmux("send-keys", "-t", session, `\;`)
		}
		if len(keys) > 0 {
			tmux(append([]string{"send-keys", "-t", session}, keys...)...)
		}
	}
	waitFor("sqlnb shell on")

	send("SELECT 42 AS answer, NULL AS nothing;", "Enter")
	s := waitFor("(1 row)")
	for _, want := range []string{"answer", "integer", "42", "NULL"} {
		if !strings.Contains(s, want) {
			t.Errorf("query result lacks %q:\n%s", want, s)
		}
	}
	send("SELECT 'multi' AS first_col,", "Enter")
	waitFor("...>")
	send("  'line' AS second_col;", "Enter")
	waitFor("second_col")

	send(".mode csv", "Enter")
	send("SELECT 7 AS x, 'csv' AS y;", "Enter")
	waitFor("7,csv")

	send("SELEC 1;", "Enter")
	waitFor("Error: Parser Error")
	send("SELECT 'still alive' AS s;", "Enter")
	waitFor("still alive")

	send("SELECT count(*) FROM range(100000000000000) r(i) WHERE i % 7 = 3;", "Enter")
	s = waitFor("running") // the progress bar
	time.Sleep(300 * time.Millisecond)
	send("", "C-c")
	waitFor("Error: query interrupted (Ctrl-C)")
	send("SELECT 'after ctrl-c' AS z;", "Enter")
	waitFor("after ctrl-c")

	send(".quit", "Enter")
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "has-session", "-t", session).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the shell did not end on .quit:\n%s", screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	hist, err := os.ReadFile(filepath.Join(dir, "history"))
	if err != nil || !strings.Contains(string(hist), "SELECT 42 AS answer") {
		t.Errorf("history file: %v %q", err, hist)
	}
}

//go:build integration

package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	// Keys are found as nb_predict finds struct fields: exactly, else ignoring ASCII case (a PostgreSQL table's
	// unquoted columns are lower case); a missing one is an error (it was read as NULL: the prior's answer).
	if n := psql("-At", "-c", `SELECT count(*) FROM s t WHERE ex_predict_proba(to_jsonb(t)) IS DISTINCT FROM
		ex_predict_proba((to_jsonb(t) - 'colour') || jsonb_build_object('COLOUR', t.colour))`); strings.TrimSpace(n) != "0" {
		t.Errorf("COLOUR for colour: %s rows differ", n)
	}
	out2, err := exec.Command("psql", "-X", "-v", "ON_ERROR_STOP=1", "-q", "-c", `SELECT ex_predict('{"id": 1, "colour": "red"}'::jsonb)`).CombinedOutput()
	if err == nil || !strings.Contains(string(out2), `model "ex" needs feature "x \"quoted\"", which the row lacks (its keys: id, colour)`) {
		t.Errorf("a row without features: %v\n%s", err, out2)
	}
}

// TestShellTmux drives `sqlnb shell` in tmux as a person would: a query, a multi-line statement, .import,
// Tab completion (a table, a keyword, a model name, a table of a database opened with .open), .maxrows,
// .mode csv, an error that does not end the session, a long query whose progress spinner must not draw
// after it ends, Ctrl-C on a long query, and a multi-line statement recalled from the history after a
// restart.
func TestShellTmux(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(csvPath, []byte("label,x\na,1.0\nb,2.0\na,1.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	session := "sqlnb_test_" + strconv.Itoa(os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	start := func() {
		tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "60",
			"env SQLNB_HISTORY="+filepath.Join(dir, "history")+" "+bin+" shell "+filepath.Join(dir, "shell.duckdb"))
	}
	start()
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
	// clear empties the screen and its scrollback, so that waitFor sees only what comes next.
	clear := func() {
		send("", "C-l")
		time.Sleep(200 * time.Millisecond)
		tmux("clear-history", "-t", session)
	}
	// lastLine is the last line with text on the screen.
	lastLine := func(s string) string {
		lines := strings.Split(strings.TrimRight(s, " \n"), "\n")
		return strings.TrimSpace(lines[len(lines)-1])
	}
	// settled checks that nothing draws on the screen any more and that the prompt is the last line: a
	// progress spinner that outlives its query redraws over the prompt.
	settled := func(what string) {
		t.Helper()
		time.Sleep(time.Second)
		a := screen()
		time.Sleep(time.Second)
		b := screen()
		if a != b || lastLine(b) != "sqlnb>" || strings.Contains(b, "running") {
			t.Errorf("%s: the screen still changes or does not end at the prompt:\n%s\n--- a second later:\n%s", what, a, b)
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
	// A value wider than the terminal (150 columns) is cut to fit, with "…".
	clear()
	send("SELECT repeat('abcdefghij', 30) AS wide, 7 AS seven;", "Enter")
	s = waitFor("(1 row)")
	if !strings.Contains(s, "…") || !strings.Contains(s, "│ 7 ") {
		t.Errorf("a value wider than the terminal:\n%s", s)
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "abcdefghij") && strings.Contains(line, strings.Repeat("abcdefghij", 15)) {
			t.Errorf("the wide value was not cut: %q", line)
		}
	}
	send("SELECT 'multi' AS first_col,", "Enter")
	waitFor("...>")
	send("  'line' AS second_col;", "Enter")
	waitFor("second_col")

	// .import creates the table, then appends to it.
	send(".import "+csvPath+" imported_rows", "Enter")
	waitFor("created imported_rows: 3 rows")
	send(".import "+csvPath+" imported_rows", "Enter")
	waitFor("appended to imported_rows: 3 rows")

	// Tab completes a table created a moment ago, a keyword, and a model name inside nb_*('.
	clear()
	send("SELECT count(*) AS n_imported FROM imported_r", "Tab")
	waitFor("FROM imported_rows")
	send(";", "Enter")
	waitFor("│ 6 ")
	send("sel", "Tab")
	waitFor("sqlnb> select")
	send(" 'keyword' AS kw;", "Enter")
	waitFor("keyword")
	send("CALL nb_train('tmux_model', 'imported_rows', 'label');", "Enter")
	waitFor("tmux_model │")
	clear()
	send("SELECT nb_predict('tmux_m", "Tab")
	waitFor("nb_predict('tmux_model'")
	send(", {'x': 2.0}) AS predicted;", "Enter")
	waitFor("│ b ")

	// .maxrows limits a table.
	send(".maxrows 3", "Enter")
	send("SELECT * FROM range(10);", "Enter")
	waitFor("… 7 more rows")
	send(".maxrows 40", "Enter")

	// A long query: the spinner shows while it runs and is gone, for good, when the result is printed.
	clear()
	send("SELECT count(*) AS multiples FROM range(400000000) WHERE range % 7 = 0;", "Enter")
	waitFor("running")
	waitFor("57142858")
	settled("after a long query")

	send(".mode csv", "Enter")
	send("SELECT 7 AS x, 'csv' AS y;", "Enter")
	waitFor("7,csv")
	send(".mode table", "Enter")

	send("SELEC 1;", "Enter")
	waitFor("Error: Parser Error")
	send("SELECT 'still alive' AS s;", "Enter")
	waitFor("still alive")

	clear()
	send("SELECT count(*) FROM range(100000000000000) r(i) WHERE i % 7 = 3;", "Enter")
	waitFor("running") // the progress bar
	time.Sleep(300 * time.Millisecond)
	send("", "C-c")
	waitFor("Error: query interrupted (Ctrl-C)")
	settled("after Ctrl-C")
	send("SELECT 'after ctrl-c' AS z;", "Enter")
	waitFor("after ctrl-c")

	// .open switches to another database file; Tab sees its tables.
	other := filepath.Join(dir, "other.duckdb")
	send(".open "+other, "Enter")
	send("CREATE TABLE only_in_other AS SELECT 1 AS one;", "Enter")
	clear()
	send("SELECT count(*) AS tables_here FROM only_in_o", "Tab")
	waitFor("FROM only_in_other")
	send(";", "Enter")
	waitFor("tables_here")
	send("FROM imported_rows;", "Enter")
	waitFor("Table with name imported_rows does not exist")
	if _, err := os.Stat(other); err != nil {
		t.Errorf(".open did not create %s: %v", other, err)
	}

	// The last statement spans two lines, with a ';' inside a -- comment.
	send("SELECT 'restored' AS r, -- a comment; not the end", "Enter")
	waitFor("...>")
	send("  2 AS s;", "Enter")
	waitFor("restored")
	quit := func() {
		t.Helper()
		send(".quit", "Enter")
		deadline := time.Now().Add(10 * time.Second)
		for exec.Command("tmux", "has-session", "-t", session).Run() == nil {
			if time.Now().After(deadline) {
				t.Fatalf("the shell did not end on .quit:\n%s", screen())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	quit()
	hist, err := os.ReadFile(filepath.Join(dir, "history"))
	if err != nil || !strings.Contains(string(hist), "SELECT 42 AS answer") {
		t.Errorf("history file: %v %q", err, hist)
	}

	// After a restart the two-line statement comes back whole from the history (Up: .quit, Up: it).
	start()
	waitFor("sqlnb shell on")
	send("", "Up", "Up")
	waitFor("  2 AS s;")
	send("", "Enter")
	s = waitFor("│ restored │")
	if !strings.Contains(s, "sqlnb> SELECT 'restored' AS r, -- a comment; not the end\n  2 AS s;") {
		t.Errorf("the recalled statement is not whole:\n%s", s)
	}
	quit()
}

// TestProgressTmux runs long commands in a terminal (tmux) as a person would: predict and eval draw a
// progress bar on stderr — the percentage DuckDB reports, the rows it stands for of the source's estimated
// rows, their rate and the time left — erase it, and end with their one-line summary; with --quiet the
// terminal shows nothing but the prompt.
func TestProgressTmux(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	dir := t.TempDir()
	db := filepath.Join(dir, "big.duckdb")
	sqlnbCmd(t, dir, "--db", db, "sql", "-c", `CREATE TABLE d AS SELECT ['a', 'b', 'c'][1 + (i % 3)::INTEGER] AS y,
		(i % 3) + sin(i) AS x1, cos(i * 7) AS x2, (i % 3) * 0.5 + sin(i * 13) AS x3, sin(i * 17) AS x4 FROM range(6000000) r(i)`)
	sqlnbCmd(t, dir, "--db", db, "train", "--model", "m", "--label", "y", "--from", "d")
	session := "sqlnb_progress_" + strconv.Itoa(os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "40", "-c", dir, "bash --norc --noprofile")
	defer exec.Command("tmux", "kill-session", "-t", session).Run()
	screen := func() string { return tmux("capture-pane", "-p", "-t", session) }
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %s:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	contains := func(texts ...string) func(string) bool {
		return func(s string) bool {
			for _, x := range texts {
				if !strings.Contains(s, x) {
					return false
				}
			}
			return true
		}
	}
	command := func(line string) {
		tmux("send-keys", "-t", session, "clear; "+line+"; echo DONE-$?", "Enter")
	}
	command(bin + " --db big.duckdb predict --model m --from d --proba --output out.parquet")
	bar := waitFor("a progress bar with rows and a rate", contains("%", "|", "scoring: ", " of ~6.00M rows, ", " rows/s"))
	if !regexp.MustCompile(`\d+% \|[^|]*\| +\[\d+s:\d+s\] scoring: `).MatchString(bar) {
		t.Errorf("the bar lacks its percentage, bar or time left:\n%s", bar)
	}
	s := waitFor("the summary", contains("DONE-0"))
	if !strings.Contains(s, `scored 6000000 rows with "m" into out.parquet in `) || strings.Contains(s, "rows/s") || strings.Contains(s, "%") {
		t.Errorf("after predict the bar is not replaced by the summary:\n%s", s)
	}
	command(bin + " --db big.duckdb eval --model m --from d --format csv --what confusion")
	waitFor("eval's bar", contains("%", "evaluating: ", " rows/s"))
	s = waitFor("eval's summary", contains("DONE-0"))
	if !strings.Contains(s, `evaluated "m" on 6000000 rows in `) || strings.Contains(s, "rows/s") {
		t.Errorf("after eval:\n%s", s)
	}
	command(bin + " --quiet --db big.duckdb predict --model m --from d --proba --output out.parquet")
	time.Sleep(1500 * time.Millisecond)
	if s := screen(); strings.Contains(s, "%") {
		t.Errorf("--quiet drew a bar:\n%s", s)
	}
	s = waitFor("the quiet command's end", contains("DONE-0"))
	if strings.Contains(s, "scored") {
		t.Errorf("--quiet wrote a summary:\n%s", s)
	}
}

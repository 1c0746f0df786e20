//go:build integration

package itest

import (
	"encoding/csv"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo is the repository root (the tests run in extension/itest).
func repo(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// cli runs the sqlnb binary; it returns stdout, or the error message it printed (without "sqlnb: ").
func cli(t *testing.T, args ...string) (out, errMsg string) {
	t.Helper()
	cmd := exec.Command(mustEnv(t, "SQLNB_BIN"), args...)
	cmd.Dir = repo(t)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("sqlnb %v: %v", args, err)
		}
		return stdout.String(), strings.TrimSpace(strings.TrimPrefix(stderr.String(), "sqlnb: "))
	}
	return stdout.String(), ""
}

// cliValue runs one query that returns one VARCHAR value in the binary, read-only.
func cliValue(t *testing.T, db, query string) (string, string) {
	t.Helper()
	out, msg := cli(t, "sql", "--db", db, "--read-only", "--format", "csv", "-c", query)
	if msg != "" {
		return "", msg
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 || len(recs[1]) != 1 {
		t.Fatalf("sqlnb sql %q: want one value, got %q (%v)", query, out, err)
	}
	return recs[1][0], ""
}

// The data sets the binary trains on, relative to the repository root.
const (
	votesTrain = "testdata/housevotes84/train.csv"
	votesTest  = "testdata/housevotes84/test.parquet"
	irisTrain  = "testdata/fixtures/e1071_iris_train.csv"
	irisExtra  = "testdata/fixtures/e1071_iris_extra.csv"
	reuters    = "testdata/reuters/reuters.csv"
)

// trainWithCLI makes a database file with three models of different families, trained by the binary.
func trainWithCLI(t *testing.T) string {
	t.Helper()
	db := newDB(t, "models.duckdb")
	for _, args := range [][]string{
		{"train", "--db", db, "--model", "votes", "--label", "party", "--from", votesTrain},
		{"train", "--db", db, "--model", "iris", "--label", "label", "--exclude", "id", "--from", irisTrain},
		{"train", "--db", db, "--model", "topics", "--label", "topic", "--features", "text", "--feature-kind", "text=text", "--from", reuters},
	} {
		if _, msg := cli(t, args...); msg != "" {
			t.Fatalf("sqlnb %v: %s", args, msg)
		}
	}
	return db
}

// perRow is a query giving one VARCHAR: expr for every row of src (alias t), in the source's order.
func perRow(expr, src string) string {
	return fmt.Sprintf("SELECT string_agg(v, ' | ' ORDER BY rn) FROM (SELECT row_number() OVER () AS rn, (%s)::VARCHAR AS v FROM %s t)", expr, src)
}

// scoringQueries are every scoring function on every model, and the model tables' table functions, each as
// one VARCHAR value: DuckDB prints a DOUBLE with the fewest digits that read back to the same bits, so equal
// text is equal numbers, bit for bit. Paths are relative to root.
func scoringQueries(root string) []string {
	votes := "'" + filepath.Join(root, votesTest) + "'"
	iris := "'" + filepath.Join(root, irisExtra) + "'"
	topics := "'" + filepath.Join(root, reuters) + "'"
	var qs []string
	for _, m := range []struct{ model, src, class, row string }{
		{"votes", votes, "republican", "t"},
		{"iris", iris, "virginica", "t.sepal_length, t.sepal_width, t.petal_length, t.petal_width"},
		{"topics", topics, "crude", "{'text': t.text}"},
	} {
		for _, f := range []string{"nb_predict", "nb_predict_proba", "nb_predict_log_proba", "nb_joint_log_likelihood", "nb_log_evidence", "nb_explain"} {
			qs = append(qs, perRow(fmt.Sprintf("%s('%s', %s)", f, m.model, m.row), m.src))
		}
		qs = append(qs, perRow(fmt.Sprintf("nb_proba('%s', %s, '%s')", m.model, m.row, m.class), m.src),
			perRow(fmt.Sprintf("nb_explain('%s', %s, '%s')", m.model, m.row, m.class), m.src),
			fmt.Sprintf("SELECT string_agg(s::VARCHAR, ' | ' ORDER BY feature, class, value, parameter) FROM nb_show('%s') s", m.model))
	}
	return append(qs,
		"SELECT string_agg(m::VARCHAR, ' | ' ORDER BY name) FROM nb_models() m",
		// Cross-validation runs scoring queries inside a query of the extension's own connections. Its fold
		// metrics are sums over rows that DuckDB's threads add in varying order (the last bit differs from run
		// to run in either host), so they are compared to 12 decimals; the row scores are compared exactly above.
		"SELECT string_agg(format('{} {} {} {} {} {} {}', alpha, var_smoothing, metric, round(mean, 12), round(sd, 12), "+
			"list_transform(folds, lambda x: round(x, 12)), best), ' | ' ORDER BY metric, alpha, var_smoothing) FROM nb_cv('"+
			filepath.Join(root, votesTrain)+"', 'party', folds := 3)")
}

// badInputs are statements from README's edge-case table that must fail, with the same message as in the
// binary.
func badInputs(root string) []string {
	votes := "'" + filepath.Join(root, votesTest) + "'"
	return []string{
		"SELECT nb_predict('nope', t) FROM " + votes + " t",
		"SELECT nb_predict('votes', 1)",
		"SELECT nb_predict('iris', 'wide', 1.0, 2.0, 3.0)",
		"SELECT nb_predict('iris', {'sepal_length': 1.0, 'sepal_width': 2.0, 'petal_length': 3.0})",
		"SELECT nb_predict(m, t) FROM (SELECT 'votes' AS m) t",
		"SELECT nb_proba('votes', t, 'green') FROM " + votes + " t",
		"SELECT * FROM nb_train('one', (SELECT 1))",
		"SELECT * FROM nb_train('one', 'one_class', 'y')",
		"SELECT * FROM nb_train('dates', 'with_dates', 'y')",
		"SELECT * FROM nb_train('w', 'one_class', 'y', weight := 'nope')",
		"SELECT * FROM nb_show('nope')",
	}
}

// badSetup makes the tables badInputs trains on.
const badSetup = "CREATE TABLE one_class AS SELECT 'a' AS y, 1.0 AS x FROM range(3); " +
	"CREATE TABLE with_dates AS SELECT CASE WHEN i < 2 THEN 'a' ELSE 'b' END AS y, DATE '2020-01-01' + i::INT AS d FROM range(4) t(i)"

// TestNodeTrainsCloseReopen: training from SQL in the extension gives the model the binary trains from the
// same rows (same scores, bit for bit); the database closes and opens again in the same process, LOAD runs
// again, and what both opens wrote is there for the binary afterwards.
func TestNodeTrainsCloseReopen(t *testing.T) {
	root := repo(t)
	db := trainWithCLI(t)
	ext := mustEnv(t, "SQLNB_EXT")
	score := func(model string) string {
		return perRow(fmt.Sprintf("nb_predict_proba('%s', t)", model), "'"+filepath.Join(root, votesTest)+"'")
	}
	want, msg := cliValue(t, db, score("votes"))
	if msg != "" {
		t.Fatal(msg)
	}
	res := runNode(t, mustEnv(t, "SQLNB_NODE_DIR"), nil,
		open(db), load(ext),
		sql("SELECT model, n_rows, classes FROM nb_train('votes_ext', '"+filepath.Join(root, votesTrain)+"', 'party')"),
		sql(score("votes_ext")),
		closeDB(),
		// The extension keeps connections to the database it was loaded into (README): another process cannot
		// open the file until this one ends.
		step{"exec": []string{mustEnv(t, "SQLNB_BIN"), "models", "list", "--db", db}},
		open(db), load(ext),
		sql(score("votes_ext")), sql(score("votes")),
		sql("SELECT model FROM nb_train('again', '"+filepath.Join(root, votesTrain)+"', 'party', alpha := 2)"),
		sql("SELECT string_agg(name, ',' ORDER BY name) FROM nb_models()"),
		closeDB(),
	)
	for i, r := range res {
		if r.Error != "" {
			t.Fatalf("step %d: %s", i, r.Error)
		}
	}
	if got := res[2].text(); got != "votes_ext\t348\t2\n" {
		t.Errorf("nb_train: %q", got)
	}
	for _, i := range []int{3, 8, 9} {
		if got := res[i].text(); got != want+"\n" {
			t.Errorf("step %d: scores differ from the binary's model trained on the same rows:\n%.300q\n%.300q", i, got, want)
		}
	}
	if st := res[5].Status; st == nil || *st == 0 || !strings.Contains(res[5].Output, "is in use by node") {
		t.Errorf("another process opened the file while the extension holds it: status %v, %q", st, res[5].Output)
	}
	if got := res[11].text(); got != "again,iris,topics,votes,votes_ext\n" {
		t.Errorf("models after reopening: %q", got)
	}
	// After the process: the binary sees everything both opens wrote, and scores the extension's model alike.
	if got, msg := cliValue(t, db, "SELECT string_agg(name, ',' ORDER BY name) FROM nb_models()"); got != "again,iris,topics,votes,votes_ext" {
		t.Errorf("binary after node: %q %s", got, msg)
	}
	if got, msg := cliValue(t, db, score("votes_ext")); got != want {
		t.Errorf("binary scoring the extension's model: %.300q %s", got, msg)
	}
}

// TestNodeConcurrentConnections: several connections of one client score, train and cross-validate at once
// (the extension's kept connections serve their binds) without deadlock, each seeing whole models.
func TestNodeConcurrentConnections(t *testing.T) {
	root := repo(t)
	db := trainWithCLI(t)
	q := perRow("nb_predict('votes', t)", "'"+filepath.Join(root, votesTest)+"'")
	want, msg := cliValue(t, db, q)
	if msg != "" {
		t.Fatal(msg)
	}
	train := "SELECT model FROM nb_train('votes', '" + filepath.Join(root, votesTrain) + "', 'party')"
	cv := "SELECT count(*) FROM nb_cv('" + filepath.Join(root, votesTrain) + "', 'party', folds := 4)"
	par := []string{q, q, train, q, cv, q, train, q}
	res := runNode(t, mustEnv(t, "SQLNB_NODE_DIR"), nil, open(db), load(mustEnv(t, "SQLNB_EXT")), step{"parallel": par})
	if res[1].Error != "" {
		t.Fatal(res[1].Error)
	}
	for i, r := range res[2].Results {
		switch {
		case r.Error != "":
			t.Errorf("%s: %s", par[i], r.Error)
		case par[i] == q && r.text() != want+"\n":
			t.Errorf("%s: %.200q", par[i], r.text())
		}
	}
}

// TestNodePanics: a panic inside the extension (forced by SQLNB_TEST_PANIC) is a SQL error in the client,
// which goes on working.
func TestNodePanics(t *testing.T) {
	root := repo(t)
	db := trainWithCLI(t)
	votes := "'" + filepath.Join(root, votesTest) + "'"
	for _, c := range []struct{ point, sql string }{
		{"nb_predict:bind", "SELECT nb_predict('votes', t) FROM " + votes + " t"},
		{"nb_predict_proba:exec", "SELECT nb_predict_proba('votes', t) FROM " + votes + " t"},
		{"nb_show:bind", "SELECT * FROM nb_show('votes')"},
		{"nb_models:init", "SELECT * FROM nb_models()"},
		{"nb_models:exec", "SELECT * FROM nb_models()"},
	} {
		res := runNode(t, mustEnv(t, "SQLNB_NODE_DIR"), []string{"SQLNB_TEST_PANIC=" + c.point},
			open(db), load(mustEnv(t, "SQLNB_EXT")), sql(c.sql), sql("SELECT count(nb_log_evidence('iris', 1.0, 2.0, 3.0, 4.0))"))
		name := strings.Split(c.point, ":")[0]
		if !strings.Contains(res[2].Error, name+": internal error: test panic") {
			t.Errorf("%s: %q, want the panic as an error", c.point, res[2].Error)
		}
		if res[3].text() != "1\n" {
			t.Errorf("%s: after the panic: %q %q", c.point, res[3].text(), res[3].Error)
		}
	}
}

// TestNodeOutOfMemory: an allocation the host refuses inside a scoring callback (memory_limit reached while
// reserving a chunk's MAPs of 2000 classes) is a SQL error in the client, which goes on working: the C++
// exception used to cross the extension's Go frames and abort node.
func TestNodeOutOfMemory(t *testing.T) {
	db := newDB(t, "many.duckdb")
	if _, msg := cli(t, "sql", "--db", db, "-c", "CREATE TABLE big AS SELECT 'c' || (i % 2000) AS y, (i % 2000) * 1.0 AS x FROM range(4000) r(i); "+
		"FROM nb_train('many', 'big', 'y', force := true)"); msg != "" {
		t.Fatal(msg)
	}
	res := runNode(t, mustEnv(t, "SQLNB_NODE_DIR"), nil, open(db), load(mustEnv(t, "SQLNB_EXT")),
		sql("SET memory_limit = '40MB'"), sql("SET threads = 1; SET temp_directory = '"+t.TempDir()+"'"),
		sql("CREATE TEMP TABLE p AS SELECT nb_predict_proba('many', {'x': x}) AS p FROM big"),
		sql("SET memory_limit = '4GB'"), sql("SELECT count(nb_predict_proba('many', {'x': x})) FROM big"))
	if !strings.Contains(res[4].Error, "nb_predict_proba: Out of Memory Error") {
		t.Errorf("%q, want DuckDB's out-of-memory error", res[4].Error)
	}
	if res[6].text() != "4000\n" {
		t.Errorf("after the error: %q %q", res[6].text(), res[6].Error)
	}
}

// TestNodeAPI155Refuses: DuckDB 1.5.5 knows C API versions up to v1.2.0 and refuses the file (built for
// v1.5.6, where the scalar-function bind the functions need became stable) with a clear error.
func TestNodeAPI155Refuses(t *testing.T) {
	res := runNode(t, mustEnv(t, "SQLNB_NODE155_DIR"), nil, open(":memory:"), sql("SELECT version()"),
		load(mustEnv(t, "SQLNB_EXT")), sql("SELECT 42"))
	if res[1].text() != "v1.5.5\n" {
		t.Fatalf("node-api runs %q", res[1].text())
	}
	const want = "The file was built for DuckDB C API version 'v1.5.6', but we can only load extensions built for DuckDB C API 'v1.2.0' and lower"
	if !strings.Contains(res[2].Error, want) {
		t.Errorf("LOAD in 1.5.5: %q, want %q", res[2].Error, want)
	}
	if res[3].text() != "42\n" {
		t.Errorf("after the refusal: %q %q", res[3].text(), res[3].Error)
	}
}

// firstDifference is the index of the first byte where a and b differ (or the shorter length).
func firstDifference(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestNodeTransactionKeepsItsVersion: through the loadable extension, with SQL only, a node-api transaction
// that scored model m keeps scoring the version its snapshot sees while another connection commits five new
// versions — by retraining, nb_set, appending, forgetting and merging — and sees the newest after COMMIT
// (udf's TestTransactionKeepsItsVersion, in a host whose transactions sqlnb does not see begin and end).
func TestNodeTransactionKeepsItsVersion(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tx.duckdb")
	setup := []string{
		`CREATE TABLE d1 AS SELECT i, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, CASE WHEN i % 2 = 0 THEN 1.0 ELSE 5.0 END + sin(i) AS x,
			CASE WHEN (i % 2 = 0) = (i % 5 <> 0) THEN 'u' ELSE 'v' END AS c FROM range(300) r(i)`,
		`CREATE TABLE d2 AS SELECT i, CASE WHEN i % 2 = 0 THEN 'b' ELSE 'a' END AS y, CASE WHEN i % 2 = 0 THEN 1.5 ELSE 4.0 END + cos(i) AS x,
			CASE WHEN (i % 2 = 0) = (i % 3 <> 0) THEN 'v' ELSE 'u' END AS c FROM range(301) r(i)`,
	}
	for i := range 5 {
		setup = append(setup,
			fmt.Sprintf(`CREATE TABLE d1_%d AS SELECT y, x, c FROM d1 WHERE i %% 10 = %d`, i, i),
			fmt.Sprintf(`CREATE TABLE d2_%d AS SELECT y, x, c FROM d2 WHERE i %% 5 = %d`, i, i),
			fmt.Sprintf(`CALL nb_train('part%d', 'd2_%d', 'y')`, i, i))
	}
	setup = append(setup, `ALTER TABLE d1 DROP COLUMN i`, `ALTER TABLE d2 DROP COLUMN i`)
	writers := []struct {
		name  string
		write func(i int) string
	}{
		{"retrain", func(i int) string { return fmt.Sprintf(`CALL nb_train('m', 'd%d', 'y')`, 1+(i+1)%2) }},
		{"nb_set", func(i int) string { return fmt.Sprintf(`CALL nb_set('m', alpha := %d)`, 2+i) }},
		{"append", func(int) string { return `CALL nb_train('m', 'd2', 'y', append := true)` }},
		{"forget", func(i int) string { return fmt.Sprintf(`CALL nb_forget('m', 'd1_%d', 'y')`, i) }},
		{"merge", func(i int) string { return fmt.Sprintf(`CALL nb_merge('m', ['m', 'part%d'], replace := true)`, i) }},
	}
	probe := `SELECT nb_predict_proba('m', {'x': 2.0, 'c': 'u'})::VARCHAR || ' ' || nb_joint_log_likelihood('m', {'x': 2.0, 'c': 'u'})::VARCHAR`
	steps := []step{open(db), load(mustEnv(t, "SQLNB_EXT")), {"connect": "reader"}}
	for _, q := range setup {
		steps = append(steps, sql(q))
	}
	reader := func(q string) step { return step{"sql": q, "conn": "reader"} }
	marks := map[string][2]int{} // per writer: the index of the reader's first score and of the newest's score
	for _, w := range writers {
		steps = append(steps, sql(`CALL nb_train('m', 'd1', 'y')`), reader(`BEGIN`))
		first := len(steps)
		steps = append(steps, reader(probe))
		for i := range 5 {
			steps = append(steps, sql(w.write(i)), reader(probe))
		}
		steps = append(steps, reader(`COMMIT`), sql(probe))
		newest := len(steps) - 1
		steps = append(steps, reader(probe))
		marks[w.name] = [2]int{first, newest}
	}
	res := runNode(t, mustEnv(t, "SQLNB_NODE_DIR"), nil, steps...)
	for i, r := range res {
		if r.Error != "" {
			t.Fatalf("step %d (%v): %s", i, steps[i], r.Error)
		}
	}
	for _, w := range writers {
		first, newest := marks[w.name][0], marks[w.name][1]
		want := res[first].text()
		for i := range 5 {
			if got := res[first+2+2*i].text(); got != want {
				t.Errorf("%s: after commit %d the transaction scored %s, before %s", w.name, i+1, got, want)
			}
		}
		if res[newest].text() == want {
			t.Errorf("%s: the five commits did not change the scores: the test shows nothing", w.name)
		}
		if got := res[newest+1].text(); got != res[newest].text() {
			t.Errorf("%s: after COMMIT the reader scored %s, the newest version %s", w.name, got, res[newest].text())
		}
	}
}

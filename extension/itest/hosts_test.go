//go:build integration

package itest

import (
	"context"
	gosql "database/sql"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// host is a DuckDB client that loads the extension. run runs statements on a database, each statement's
// output as chost prints it: one line per row, values tab-separated, NULL as \N, or "error: <message>" on
// one line.
type host struct {
	name    string
	version string // the DuckDB it runs (SELECT version())
	run     func(t *testing.T, env []string, db string, stmts ...string) []string
}

// slotsOf is how many slots of its C API function table each DuckDB hands over (measured with
// extension/gen's probe: 1.5.6 in node-api, 2.0.0 in extension/host).
var slotsOf = map[string]int{"v1.5.6": 546, "v2.0.0": 548}

// hosts are the clients every host test runs in; each is built when a test first runs it.
func hosts() []host {
	return []host{
		{"node-api 1.5.6", "v1.5.6", func(t *testing.T, env []string, db string, stmts ...string) []string {
			steps := []step{open(db)}
			for _, s := range stmts {
				steps = append(steps, sql(s))
			}
			res := runNode(t, mustEnv(t, "SQLNB_NODE_DIR"), env, steps...)
			if res[0].Error != "" {
				t.Fatalf("node-api: open %s: %s", db, res[0].Error)
			}
			out := make([]string, len(stmts))
			for i, r := range res[1:] {
				out[i] = r.text()
				if r.Error != "" {
					out[i] = "error: " + oneLine(r.Error) + "\n"
				}
			}
			return out
		}},
		{"C on libduckdb.so 1.5.6", "v1.5.6", func(t *testing.T, env []string, db string, stmts ...string) []string {
			return runProgram(t, env, cBuild(t), db, stmts...)
		}},
		{"Go on duckdb-go 1.5.6", "v1.5.6", func(t *testing.T, env []string, db string, stmts ...string) []string {
			return runProgram(t, env, goHost(t, "go.duckdb15.mod"), db, stmts...)
		}},
		{"Go on duckdb-go 2.0", "v2.0.0", func(t *testing.T, env []string, db string, stmts ...string) []string {
			return runProgram(t, env, goHost(t, "go.mod"), db, stmts...)
		}},
		{"C on DuckDB 2.0 static", "v2.0.0", func(t *testing.T, env []string, db string, stmts ...string) []string {
			return runProgram(t, env, cStaticBuild(t), db, stmts...)
		}},
	}
}

// inProcessHost is this test process as a host: duckdb-go (the DuckDB of the module file the tests are built
// with, 2.0 by default) through database/sql, on one connection. The extension it loads stays loaded, with
// its connections, until the process ends, and reads its environment once: env must be empty.
func inProcessHost(t *testing.T) host {
	var version string
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	return host{"Go in the test process (duckdb-go " + version + ")", version, func(t *testing.T, env []string, path string, stmts ...string) []string {
		if len(env) > 0 {
			t.Fatal("the test process cannot change the extension's environment")
		}
		db, err := gosql.Open("duckdb", path+"?allow_unsigned_extensions=true")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		out := make([]string, len(stmts))
		for i, q := range stmts {
			out[i] = queryText(ctx, conn, q)
		}
		return out
	}}
}

// queryText runs q on conn and renders its rows as chost does (values printed with fmt).
func queryText(ctx context.Context, conn *gosql.Conn, q string) string {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return "error: " + oneLine(err.Error()) + "\n"
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "error: " + oneLine(err.Error()) + "\n"
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString(`\N`)
			} else {
				fmt.Fprint(&b, v)
			}
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		return "error: " + oneLine(err.Error()) + "\n"
	}
	return b.String()
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// withoutPosition is an error message without the statement DuckDB quotes after it ("LINE 1: ...", with a
// caret under the call: 1.5 marks its start, 2.0 underlines it): the host's rendering, not sqlnb's message.
func withoutPosition(msg string) string {
	if i := strings.Index(msg, "LINE 1: "); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}

// labelModels are models trained from SQL in each host, one per label type (INTEGER, BOOLEAN, VARCHAR) and
// family (categorical votes, Gaussian iris). typ is the label's SQL type; class one of its values as text.
var labelModels = []struct{ name, typ, class string }{
	{"votes_int", "INTEGER", "4"}, {"votes_bool", "BOOLEAN", "true"}, {"votes_text", "VARCHAR", "republican"},
	{"iris_int", "INTEGER", "3"}, {"iris_bool", "BOOLEAN", "false"}, {"iris_text", "VARCHAR", "virginica"},
}

// labelSetup makes each label model's training table <name> and scoring table <name>_test (iris is scored
// on its training rows: its extra rows have no label) and trains the models, half with CALL, half with
// SELECT * FROM.
func labelSetup(root string) []string {
	votesCSV := "read_csv('" + filepath.Join(root, votesTrain) + "')"
	votesPq := "'" + filepath.Join(root, votesTest) + "'"
	iris := "'" + filepath.Join(root, irisTrain) + "'"
	label := map[string]string{
		"votes_int": "CASE party WHEN 'republican' THEN 4 ELSE -3 END::INTEGER", "votes_bool": "party = 'republican'", "votes_text": "party",
		"iris_int": "list_position(['setosa', 'versicolor', 'virginica'], label)::INTEGER", "iris_bool": "label = 'virginica'", "iris_text": "label",
	}
	var s []string
	for i, m := range labelModels {
		if strings.HasPrefix(m.name, "votes") {
			s = append(s, fmt.Sprintf("CREATE TABLE %s AS SELECT %s AS y, * EXCLUDE (party) FROM %s", m.name, label[m.name], votesCSV),
				fmt.Sprintf("CREATE TABLE %s_test AS SELECT %s AS y, * EXCLUDE (party) FROM %s", m.name, label[m.name], votesPq))
		} else {
			s = append(s, fmt.Sprintf("CREATE TABLE %s AS SELECT %s AS y, * EXCLUDE (id, label) FROM %s", m.name, label[m.name], iris),
				fmt.Sprintf("CREATE VIEW %s_test AS FROM %s", m.name, m.name))
		}
		if i%2 == 0 {
			s = append(s, fmt.Sprintf("CALL nb_train('m_%s', '%s', 'y')", m.name, m.name))
		} else {
			s = append(s, fmt.Sprintf("SELECT * FROM nb_train('m_%s', '%s', 'y')", m.name, m.name))
		}
	}
	return s
}

// labelQueries score every label model with every scoring function (each query one VARCHAR value, compared
// with the binary's bit for bit), check that nb_predict's text casts back to the label's type, and group by
// the cast prediction.
func labelQueries() []string {
	var qs []string
	for _, m := range labelModels {
		model, src := "m_"+m.name, m.name+"_test"
		for _, f := range []string{"nb_predict", "nb_predict_proba", "nb_predict_log_proba", "nb_joint_log_likelihood", "nb_log_evidence", "nb_explain"} {
			qs = append(qs, perRow(fmt.Sprintf("%s('%s', t)", f, model), src))
		}
		qs = append(qs,
			perRow(fmt.Sprintf("nb_proba('%s', t, '%s')", model, m.class), src),
			perRow(fmt.Sprintf("nb_proba('%s', t, t.y::VARCHAR)", model), src),
			perRow(fmt.Sprintf("nb_explain('%s', t, '%s')", model, m.class), src),
			// typeof, rows, rows whose prediction cast to the label's type equals the label, and rows whose
			// prediction equals the label as text: the last two must agree (checked below).
			fmt.Sprintf("SELECT format('%s {} {} {} {}', any_value(typeof(nb_predict('%s', t))), count(*), "+
				"count(*) FILTER (WHERE nb_predict('%s', t)::%s = y), count(*) FILTER (WHERE nb_predict('%s', t) = y::VARCHAR)) FROM %s t",
				m.typ, model, model, m.typ, model, src),
			fmt.Sprintf("SELECT string_agg(format('{}={}', p, n), ' ' ORDER BY p) FROM (SELECT nb_predict('%s', t)::%s AS p, count(*) AS n FROM %s t GROUP BY ALL)",
				model, m.typ, src),
			fmt.Sprintf("SELECT string_agg(s::VARCHAR, ' | ' ORDER BY feature, class, value, parameter) FROM nb_show('%s') s", model))
	}
	return append(qs, "SELECT string_agg(format('{} {} {} {} {} {}', name, label, n_rows, classes, features, kinds), ' | ' ORDER BY name) FROM nb_models()")
}

// perLabelModel is how many of labelQueries' queries score one model; typedCheck is the typed check's index
// among them.
const (
	perLabelModel = 12
	typedCheck    = 9
)

// castCheck matches labelQueries' typed check: "TYPE VARCHAR rows equal-as-type equal-as-text".
var castCheck = regexp.MustCompile(`^(INTEGER|BOOLEAN|VARCHAR) (\S+) (\d+) (\d+) (\d+)$`)

// ownQueries are DuckDB's own functions, run after the scoring: sum(INTEGER) and GROUP BY must still bind
// and compute (writing into DuckDB's private bind info once broke its catalog: sum(INTEGER) found two
// candidates, vectors came out INT64 for INT32).
var ownQueries = []string{
	"SELECT format('{} {}', sum(x::INTEGER), typeof(sum(x::INTEGER))) FROM range(1000) r(x)",
	"SELECT string_agg(format('{} {} {} {}', g, s, c, a), ' | ' ORDER BY g) FROM (SELECT x % 3 AS g, sum(x::INTEGER) AS s, count(*) AS c, avg(x) AS a FROM range(100) r(x) GROUP BY g)",
	"SELECT string_agg(format('{} {} {}', y, n, s), ' | ' ORDER BY y) FROM (SELECT y, count(*) AS n, sum(y) AS s FROM votes_int GROUP BY y)",
	"SELECT string_agg(format('{} {}', y, n), ' | ' ORDER BY y) FROM (SELECT y, count(*) AS n FROM votes_bool GROUP BY ALL)",
}

var ownWant = map[int]string{0: "499500 HUGEINT", 1: "0 1683 34 49.5 | 1 1617 33 49.0 | 2 1650 33 50.0"}

// binaryValues runs setup and then queries (each giving one value) in the sqlnb binary on db, one process
// each; a statement that fails is a test failure.
func binaryValues(t *testing.T, db string, setup, queries []string) []string {
	t.Helper()
	if len(setup) > 0 {
		if _, msg := cli(t, "sql", "--db", db, "-c", strings.Join(setup, ";\n")); msg != "" {
			t.Fatalf("binary: setup: %s", msg)
		}
	}
	out, msg := cli(t, "sql", "--db", db, "--read-only", "--format", "csv", "-c", strings.Join(queries, ";\n"))
	if msg != "" {
		t.Fatalf("binary: %s", msg)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2*len(queries) {
		t.Fatalf("binary: %d CSV records for %d queries (%v)", len(recs), len(queries), err)
	}
	want := make([]string, len(queries))
	for i := range queries {
		if len(recs[2*i+1]) != 1 {
			t.Fatalf("binary: %s: want one value, got %q", queries[i], recs[2*i+1])
		}
		want[i] = recs[2*i+1][0]
	}
	return want
}

// copyFile copies src into a new temporary directory (each host works on its own copy of a database).
func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestHostsScoreLikeTheBinary: the one extension file, in every host — node-api 1.5.6, a C program on the
// npm libduckdb.so 1.5.6, Go programs on duckdb-go 1.5.6 and 2.0, a C program on DuckDB 2.0's static library,
// and this test process — loads into a database the binary trained and reports the host's table length
// (nb_ext_abi_check names every slot after the host's symbols). It trains models with INTEGER, BOOLEAN and
// VARCHAR labels from SQL (CALL and SELECT * FROM nb_train); every scoring function on those and on the
// binary's categorical, Gaussian and text models, nb_show, nb_models and nb_cv give the binary's values bit
// for bit (the binary trains the same models from the same SQL), bad input the binary's messages;
// nb_predict's text casts back to the label's type; afterwards DuckDB's own sum(INTEGER) and GROUP BY work.
func TestHostsScoreLikeTheBinary(t *testing.T) {
	root := repo(t)
	db := trainWithCLI(t)
	if _, msg := cli(t, "sql", "--db", db, "-c", badSetup); msg != "" {
		t.Fatal(msg)
	}
	// First the binary's models as the binary trained them, and bad input; then the label models, trained
	// from the same SQL in the binary and in each host.
	scoring, bad, setup := scoringQueries(root), badInputs(root), labelSetup(root)
	labelled := append(labelQueries(), ownQueries...)
	want := append(binaryValues(t, copyFile(t, db), nil, scoring), binaryValues(t, copyFile(t, db), setup, labelled)...)
	for i, w := range ownWant {
		if got := want[len(want)-len(ownQueries)+i]; got != w {
			t.Errorf("binary: %s: %q, want %q", ownQueries[i], got, w)
		}
	}
	wantErr := make([]string, len(bad))
	for i, q := range bad {
		if _, wantErr[i] = cliValue(t, db, q); wantErr[i] == "" {
			t.Fatalf("binary: %s: no error", q)
		}
	}
	ext := mustEnv(t, "SQLNB_EXT")
	for _, h := range append(hosts(), inProcessHost(t)) {
		t.Run(h.name, func(t *testing.T) {
			stmts := append([]string{"LOAD '" + ext + "'", "SELECT version()", "SELECT nb_extension_version(), nb_ext_abi_check()"}, scoring...)
			stmts = append(append(append(stmts, bad...), setup...), labelled...)
			start := time.Now()
			out := h.run(t, nil, copyFile(t, db), stmts...)
			t.Logf("%d statements in %.1fs", len(stmts), time.Since(start).Seconds())
			if out[0] != "" {
				t.Fatalf("LOAD: %s", out[0])
			}
			if out[1] != h.version+"\n" {
				t.Fatalf("the host runs DuckDB %q, want %s", out[1], h.version)
			}
			n := slotsOf[h.version]
			wantCheck := fmt.Sprintf("ok: %d slots, %d named by the host", n, n)
			if n < slotsOf["v2.0.0"] { // slots.h is 2.0's table
				wantCheck += fmt.Sprintf(", %d newer ones stubbed", slotsOf["v2.0.0"]-n)
			}
			if got, want := out[2], extensionVersion(t, ext)+"\t"+wantCheck+"\n"; got != want {
				t.Errorf("version and ABI check: %q, want %q", got, want)
			}
			out = out[3:]
			compare := func(q, got, want string) {
				if got != want+"\n" {
					at := firstDifference(got, want)
					t.Errorf("%s\ndiffers at byte %d:\nextension: %.300q\nbinary:    %.300q", q, at, got[at:], want[at:])
				}
			}
			for i, q := range scoring {
				compare(q, out[i], want[i])
			}
			out = out[len(scoring):]
			for i, q := range bad {
				if withoutPosition(out[i]) != "error: "+withoutPosition(oneLine(wantErr[i])) {
					t.Errorf("%s\nextension: %q\nbinary:    %q", q, out[i], wantErr[i])
				}
			}
			out = out[len(bad):]
			for i, s := range setup {
				if strings.HasPrefix(out[i], "error: ") {
					t.Fatalf("%s: %s", s, out[i])
				}
			}
			out, want := out[len(setup):], want[len(scoring):]
			for i, q := range labelled {
				compare(q, out[i], want[i])
			}
			for i, m := range labelModels {
				typed := out[perLabelModel*i+typedCheck]
				if c := castCheck.FindStringSubmatch(strings.TrimSpace(typed)); c == nil || c[1] != m.typ || c[2] != "VARCHAR" || c[4] != c[5] || c[4] == "0" {
					t.Errorf("model m_%s: label type, nb_predict's type, rows, equal to the label as %s, equal as text: %q; want VARCHAR and equal counts",
						m.name, m.typ, typed)
				}
			}
		})
	}
}

// TestHostsRefuse: a file the host cannot run is refused at LOAD with a message, and the host goes on: DuckDB
// refuses another platform's footer, a newer C API's, and C API v2's (each line with its own words); the
// extension refuses a host whose version it cannot read or that is older than 1.5.6 (SQLNB_TEST_HOST_VERSION
// stands in for the version the host reports). Then the real file loads in the same process.
func TestHostsRefuse(t *testing.T) {
	ext := mustEnv(t, "SQLNB_EXT")
	platform := withFooter(t, ext, "-platform", "osx_arm64")
	tooNew := withFooter(t, ext, "-api-version", "v1.7.0")
	v2 := withFooter(t, ext, "-api-version", "v2.0.0")
	const prefix = "error: Invalid Input Error: Failed to load '%s', "
	wantV2 := map[string]string{
		"v1.5.6": "The file was built for DuckDB C API version 'v2.0.0', but we can only load extensions built for DuckDB C API 'v1.x.y'.",
		"v2.0.0": "The file was built for DuckDB C API version 'v2.0.0', but the V2 C API has no stable surface yet: only V2 extensions built specifically for this version of DuckDB can be loaded.",
	}
	for _, h := range hosts() {
		t.Run(h.name, func(t *testing.T) {
			out := h.run(t, nil, ":memory:", "LOAD '"+platform+"'", "LOAD '"+tooNew+"'", "LOAD '"+v2+"'", "SELECT 42", "LOAD '"+ext+"'", "SELECT nb_extension_version()")
			for i, w := range []string{
				fmt.Sprintf(prefix, platform) + "The file was built for the platform 'osx_arm64', but we can only load extensions built for platform 'linux_amd64'.\n",
				fmt.Sprintf(prefix, tooNew) + "The file was built for DuckDB C API version 'v1.7.0', but we can only load extensions built for DuckDB C API 'v1.5.6' and lower.\n",
				fmt.Sprintf(prefix, v2) + wantV2[h.version] + "\n",
				"42\n", "", extensionVersion(t, ext) + "\n",
			} {
				if out[i] != w {
					t.Errorf("statement %d: %q\nwant %q", i, out[i], w)
				}
			}
			for _, c := range []struct{ version, want string }{
				{"v1.5.5", "sqlnb: DuckDB v1.5.5 is older than v1.5.6, the first DuckDB sqlnb runs in"},
				{"banana", `sqlnb: cannot tell which DuckDB loads the extension: DuckDB version "banana": want vMAJOR.MINOR.PATCH; sqlnb runs in DuckDB v1.5.6 and later`},
			} {
				out := h.run(t, []string{"SQLNB_TEST_HOST_VERSION=" + c.version}, ":memory:", "LOAD '"+ext+"'", "SELECT 42", "SELECT nb_extension_version()")
				wantLoad := "error: Invalid Error: An error was thrown during initialization of the extension '" + ext + "': " + c.want + "\n"
				if out[0] != wantLoad || out[1] != "42\n" || !strings.Contains(out[2], "nb_extension_version does not exist") {
					t.Errorf("host version %s: %q\nwant %q, then 42 and no nb_extension_version", c.version, out, wantLoad)
				}
			}
		})
	}
}

// runProgram runs a chost-style program (chost.c, extension/host) and returns each statement's output.
func runProgram(t *testing.T, env []string, bin, db string, stmts ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a deadlock is a failure
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{db}, stmts...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s (a crash is a failure): %v\n%s\n%.2000s", filepath.Base(bin), err, stderr.String(), out)
	}
	parts := programHeader.Split(string(out), -1)
	if len(parts) != len(stmts)+1 || parts[0] != "" {
		t.Fatalf("%d outputs for %d statements:\n%.2000s", len(parts)-1, len(stmts), out)
	}
	return parts[1:]
}

// programHeader is the line before each statement's output: "== N", with -repeat the best time.
var programHeader = regexp.MustCompile(`(?m)^== \d+(?: ([0-9.]+))?\n`)

// TestGoConcurrentConnections: as TestNodeConcurrentConnections, in this test process (duckdb-go, DuckDB
// 2.0 on the primary line): eight connections of the host score, train and cross-validate at once.
func TestGoConcurrentConnections(t *testing.T) {
	root := repo(t)
	db := trainWithCLI(t)
	q := perRow("nb_predict('votes', t)", "'"+filepath.Join(root, votesTest)+"'")
	want, msg := cliValue(t, db, q)
	if msg != "" {
		t.Fatal(msg)
	}
	conn, err := gosql.Open("duckdb", db+"?allow_unsigned_extensions=true")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec("LOAD '" + mustEnv(t, "SQLNB_EXT") + "'"); err != nil {
		t.Fatal(err)
	}
	train := "SELECT model FROM nb_train('votes', '" + filepath.Join(root, votesTrain) + "', 'party')"
	cv := "SELECT count(*)::VARCHAR FROM nb_cv('" + filepath.Join(root, votesTrain) + "', 'party', folds := 4)"
	par := []string{q, q, train, q, cv, q, train, q}
	errs := make(chan error, len(par))
	for _, s := range par {
		go func() {
			var got string
			err := conn.QueryRow(s).Scan(&got)
			if err == nil && s == q && got != want {
				err = fmt.Errorf("scores %.200q, want %.200q", got, want)
			}
			if err != nil {
				err = fmt.Errorf("%s: %w", s, err)
			}
			errs <- err
		}()
	}
	deadline := time.After(2 * time.Minute) // a deadlock is a failure, not a hung test run
	for range par {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-deadline:
			t.Fatal("the statements did not finish in 2 minutes: deadlock")
		}
	}
}

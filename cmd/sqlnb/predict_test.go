package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestPredictOutputType: predict --output writes the prediction in the label column's type (an INTEGER
// label gives an INTEGER column in parquet, csv reads back as numbers), and a VARCHAR label stays VARCHAR.
func TestPredictOutputType(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `COPY (SELECT (i % 3)::INTEGER AS grade, i % 2 = 0 AS passed, (i % 3) * 10 + sin(i) AS score
		FROM range(200) r(i)) TO 'data.parquet'`)
	mustRun(t, "train", "--model", "grade", "--label", "grade", "--from", "SELECT grade, score FROM 'data.parquet'")
	mustRun(t, "train", "--model", "passed", "--label", "passed", "--from", "SELECT passed, score FROM 'data.parquet'")
	for _, c := range []struct{ model, file, want string }{
		{"grade", "g.parquet", "INTEGER"}, {"passed", "p.parquet", "BOOLEAN"}, {"grade", "g.csv", "BIGINT"},
	} {
		mustRun(t, "predict", "--model", c.model, "--from", "data.parquet", "--output", c.file)
		got := mustRun(t, "sql", "--format", "csv", "-c", "SELECT column_type FROM (DESCRIBE FROM '"+c.file+"') WHERE column_name = 'prediction'")
		if strings.TrimSpace(got) != "column_type\n"+c.want {
			t.Errorf("%s: prediction column %q, want %s", c.file, got, c.want)
		}
	}
	if got := mustRun(t, "sql", "--format", "csv", "-c", "SELECT count(*) FILTER (WHERE prediction = grade) AS right FROM 'g.parquet'"); got != "right\n200\n" {
		t.Errorf("predictions equal to the INTEGER label: %q", got)
	}
}

// TestOutputKeepsWhatIsThere: an output path that is a symbolic link writes the file it points to (the link
// stays; a dangling link's target is created), a file that is there keeps its permissions, a FIFO or a
// directory (or a device: not tried here, where it would be /dev/null) is refused (a rename would replace it) and left as it was, and predict refuses an --output
// that --from reads (directly or by a glob), leaving the input whole.
func TestOutputKeepsWhatIsThere(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT i % 2 AS y, i + sin(i) AS x FROM range(50) r(i)")
	mustRun(t, "sql", "-c", "COPY (SELECT i % 2 AS y, i + sin(i) AS x FROM range(50) r(i)) TO 'in.csv'")
	input, _ := os.ReadFile("in.csv")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile("real.csv", []byte("old\n"), 0o644))
	must(os.Symlink("real.csv", "link.csv"))
	must(os.Symlink("new.csv", "dangling.csv"))
	must(os.WriteFile("private.csv", []byte("secret\n"), 0o600))
	if err := mkfifo("fifo.sql"); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	mustRun(t, "sql", "-c", "CREATE VIEW v_in AS FROM 'in.csv'; CREATE VIEW v_outer AS SELECT * FROM v_in")
	must(os.WriteFile("bare.csv", input, 0o644))
	mustRun(t, "sql", "-c", "CREATE VIEW v_bare AS FROM bare.csv")
	must(os.MkdirAll("deep/a/b", 0o755))
	must(os.WriteFile("deep/a/b/in2.csv", input, 0o644))
	for _, out := range []string{"link.csv", "dangling.csv", "private.csv"} {
		mustRun(t, "predict", "--model", "m", "--from", "in.csv", "--output", out, "--quiet")
	}
	for file, want := range map[string]os.FileMode{"real.csv": 0o644, "new.csv": 0o644, "private.csv": 0o600} {
		fi, err := os.Stat(file)
		must(err)
		if data, _ := os.ReadFile(file); !strings.HasPrefix(string(data), "y,x,prediction") || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, content %.30q; want %v and the predictions", file, fi.Mode().Perm(), data, want)
		}
	}
	for _, link := range []string{"link.csv", "dangling.csv"} {
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link", link)
		}
	}
	for _, args := range [][]string{
		{"export", "--model", "m", "--sql", "fifo.sql"},
		{"export", "--model", "m", "--sql", "."},
		{"predict", "--model", "m", "--from", "in.csv", "--output", "in.csv"},
		{"predict", "--model", "m", "--from", "i*.csv", "--output", "./in.csv"},
		{"predict", "--model", "m", "--from", "FROM 'in.csv'", "--output", "in.csv"},
		{"predict", "--model", "m", "--from", "SELECT * FROM read_csv('i?.csv')", "--output", "in.csv"},
		{"predict", "--model", "m", "--from", "v_in", "--output", "in.csv"},
		{"predict", "--model", "m", "--from", "FROM bare.csv", "--output", "bare.csv"},
		{"predict", "--model", "m", "--from", "SELECT * FROM bare.csv WHERE x > 0", "--output", "./bare.csv"},
		{"predict", "--model", "m", "--from", "v_bare", "--output", "bare.csv"},
		{"predict", "--model", "m", "--from", "SELECT * FROM V_Outer", "--output", "in.csv"},
		{"predict", "--model", "m", "--from", "deep/**/*.csv", "--output", "deep/a/b/in2.csv"},
	} {
		_, errs, code := sqlnbRun(t, args...)
		if code == exitOK || !strings.Contains(errs, "regular file") && !strings.Contains(errs, "a file --from reads") {
			t.Errorf("sqlnb %s: exit %d, %q; want an error", strings.Join(args, " "), code, errs)
		}
	}
	if fi, err := os.Lstat("fifo.sql"); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo.sql is no longer a FIFO")
	}
	// SQL's own * (SELECT *, a product) is no glob: a second run replaces its own output (the * matched every
	// file of the directory, the output too, and the run was refused).
	for run := range 2 {
		for _, from := range []string{"SELECT * FROM 'in.csv'", "SELECT y, x * 1.0 AS x FROM 'in.csv'"} {
			if _, errs, code := sqlnbRun(t, "predict", "--model", "m", "--from", from, "--output", "scored.csv", "--quiet"); code != exitOK {
				t.Errorf("run %d of predict --from %q --output scored.csv: exit %d, %s", run+1, from, code, errs)
			}
		}
	}
	for _, file := range []string{"in.csv", "bare.csv"} {
		if data, _ := os.ReadFile(file); string(data) != string(input) {
			t.Errorf("the input file %s changed", file)
		}
	}
	// eval's plots go the same way: a link in the plot directory keeps pointing at its file.
	must(os.Mkdir("plots", 0o755))
	must(os.WriteFile("my-confusion.svg", []byte("old"), 0o600))
	must(os.Symlink("../my-confusion.svg", "plots/confusion.svg"))
	mustRun(t, "eval", "--model", "m", "--from", "in.csv", "--plot", "plots", "--quiet")
	if fi, err := os.Lstat("plots/confusion.svg"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("plots/confusion.svg is no longer a symbolic link")
	}
	if fi, err := os.Stat("my-confusion.svg"); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() < 100 {
		t.Errorf("the plot's linked file: %v, %v", fi, err)
	}
}

// TestPredictJSONFiles: --output x.json is one JSON array, as a JSON parser reads a .json file (it was one
// object a line, which json.load refuses: "Extra data"); .jsonl and .ndjson stay one object a line.
func TestPredictJSONFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT ['a', 'b'][i % 2 + 1] AS y, i % 2 + sin(i) AS x FROM range(50) r(i)")
	mustRun(t, "predict", "--model", "m", "--from", "SELECT i % 2 + sin(i) AS x FROM range(3) r(i)", "--proba", "--output", "p.json", "--quiet")
	data, err := os.ReadFile("p.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) != 3 || rows[0]["prediction"] != "a" {
		t.Errorf("p.json: %v, %q", err, data)
	}
	for _, name := range []string{"p.jsonl", "p.ndjson"} {
		mustRun(t, "predict", "--model", "m", "--from", "SELECT i % 2 + sin(i) AS x FROM range(3) r(i)", "--output", name, "--quiet")
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for _, l := range lines {
			var row map[string]any
			if err := json.Unmarshal([]byte(l), &row); err != nil {
				t.Errorf("%s line %q: %v", name, l, err)
			}
		}
		if len(lines) != 3 {
			t.Errorf("%s: %d lines", name, len(lines))
		}
	}
}

// TestOutputRefusesDatabases: no file sqlnb writes replaces a DuckDB database — neither another one nor the
// open --db file (a typo like --sql sqlnb.duckdb lost every model and table) — through export --sql, models
// export, CALL nb_export or the shell's .output; and export --persist --sql that fails leaves the file that
// was there.
func TestOutputRefusesDatabases(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "--db", "other.duckdb", "sql", "-c", "CREATE TABLE keep AS SELECT 42 AS x")
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT i % 2 AS y, i + sin(i) AS x FROM range(50) r(i)")
	for _, args := range [][]string{
		{"export", "--model", "m", "--sql", "other.duckdb"},
		{"export", "--model", "m", "--sql", "sqlnb.duckdb"},
		{"models", "export", "m", "--output", "other.duckdb"},
		{"sql", "-c", "CALL nb_export('m', 'other.duckdb')"},
	} {
		_, errs, code := sqlnbRun(t, args...)
		if code == exitOK || !strings.Contains(errs, "is a DuckDB database") {
			t.Errorf("sqlnb %s: exit %d, %q; want a refusal", strings.Join(args, " "), code, errs)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"shell"}, strings.NewReader(".output other.duckdb\nSELECT 1;\n"), &out, &errs); code == exitOK ||
		!strings.Contains(errs.String(), "is a DuckDB database") {
		t.Errorf("shell .output: exit %d, %q", code, errs.String())
	}
	if got := mustRun(t, "--db", "other.duckdb", "sql", "--format", "csv", "-c", "SELECT x FROM keep"); got != "x\n42\n" {
		t.Errorf("other.duckdb: %q", got)
	}
	if got := mustRun(t, "sql", "--format", "csv", "-c", "SELECT count(*) AS n FROM nb_models()"); got != "n\n1\n" {
		t.Errorf("sqlnb.duckdb: %q", got)
	}
	// --persist fails (a table of the user's has the name it needs): the script file is left as it was.
	mustRun(t, "sql", "-c", "CREATE TABLE m_parameters AS SELECT 'mine' AS x")
	if err := os.WriteFile("m.sql", []byte("-- my script\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := sqlnbRun(t, "export", "--model", "m", "--persist", "--sql", "m.sql"); code == exitOK || !strings.Contains(errs, "m_parameters") {
		t.Errorf("export --persist: exit %d, %q", code, errs)
	}
	if data, _ := os.ReadFile("m.sql"); string(data) != "-- my script\n" {
		t.Errorf("m.sql after a failed export --persist: %.40q", data)
	}
	mustRun(t, "sql", "-c", "DROP TABLE m_parameters")
	mustRun(t, "export", "--model", "m", "--persist", "--sql", "m.sql")
	if data, _ := os.ReadFile("m.sql"); !strings.Contains(string(data), "m_predict") {
		t.Errorf("m.sql after export --persist: %.40q", data)
	}
}

// TestPredictOutputKinds: --output takes .tsv (tab-separated) and csv, tsv or json compressed as .gz or
// .zst, which --from reads too (they were refused); a compressed parquet is refused (parquet compresses
// itself).
func TestPredictOutputKinds(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT ['a', 'b'][i % 2 + 1] AS y, i % 2 + sin(i) AS x FROM range(50) r(i)")
	for _, name := range []string{"p.tsv", "p.csv.gz", "p.tsv.zst", "p.jsonl.gz", "p.json.zst"} {
		mustRun(t, "predict", "--model", "m", "--from", "SELECT i % 2 + sin(i) AS x FROM range(7) r(i)", "--output", name, "--quiet")
		if out := mustRun(t, "sql", "--format", "csv", "-c", fmt.Sprintf("SELECT count(*) AS n, count(prediction) AS p FROM '%s'", name)); !strings.Contains(out, "7,7") {
			t.Errorf("%s read back: %s", name, out)
		}
	}
	if data, _ := os.ReadFile("p.tsv"); !strings.HasPrefix(string(data), "x\tprediction\n") {
		t.Errorf("p.tsv: %.40q", data)
	}
	if _, errs, code := sqlnbRun(t, "predict", "--model", "m", "--from", "SELECT 1.0 AS x", "--output", "p.parquet.gz"); code != exitUsage || !strings.Contains(errs, ".gz or .zst") {
		t.Errorf("--output p.parquet.gz: exit %d, %s", code, errs)
	}
}

package main

import (
	"os"
	"strings"
	"testing"
)

// TestDatabaseArgument: --db naming a CSV, parquet, empty or text file is an error for every command, with
// exit 1 and nothing written to it; commands that read models need an existing database and create no
// file; train, sql, shell and models import create one; cv without a database runs in memory.
func TestDatabaseArgument(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "--db", ":memory:", "sql", "-c", `COPY (SELECT i % 2 = 0 AS y, sin(i) AS x FROM range(50) r(i)) TO 'd.csv';
		COPY (FROM 'd.csv') TO 'd.parquet'`)
	if err := os.WriteFile("empty.duckdb", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for file, what := range map[string]string{
		"d.csv": "it is a text file, CSV-like", "d.parquet": "it is a parquet file", "empty.duckdb": "it is empty",
	} {
		before, _ := os.ReadFile(file)
		for _, args := range [][]string{
			{"models", "list"}, {"train", "--model", "m", "--label", "y", "--from", "d.csv"}, {"predict", "--model", "m", "--from", "d.csv"},
			{"eval", "--model", "m", "--from", "d.csv"}, {"sql", "-c", "SELECT 1"}, {"models", "import", "m.json"},
			{"export", "--model", "m", "--sql", "x.sql"}, {"shell"},
		} {
			_, errs, code := sqlnbRun(t, append([]string{"--db", file}, args...)...)
			if code != exitError || !strings.Contains(errs, `"`+file+`" is not a DuckDB database (`+what+`): --db names the database that stores the models`) {
				t.Errorf("--db %s %v: exit %d, %s", file, args, code, errs)
			}
		}
		if after, _ := os.ReadFile(file); string(after) != string(before) {
			t.Errorf("%s was changed", file)
		}
	}
	for _, args := range [][]string{
		{"models", "list"}, {"models", "show", "m"}, {"models", "drop", "m"}, {"models", "export", "m"}, {"models", "set", "m", "--alpha", "2"},
		{"models", "upgrade"}, {"predict", "--model", "m", "--from", "d.csv"}, {"eval", "--model", "m", "--from", "d.csv"},
		{"export", "--model", "m", "--sql", "x.sql"},
	} {
		_, errs, code := sqlnbRun(t, append([]string{"--db", "typo.duckdb"}, args...)...)
		if code != exitError || !strings.Contains(errs, `database "typo.duckdb" does not exist: give the database that holds the models with --db`) {
			t.Errorf("%v on a missing database: exit %d, %s", args, code, errs)
		}
		if _, err := os.Stat("typo.duckdb"); err == nil {
			t.Fatalf("%v created the database", args)
		}
	}
	if out := mustRun(t, "cv", "--label", "y", "--from", "d.csv", "--folds", "2", "--format", "csv"); !strings.Contains(out, "accuracy") {
		t.Errorf("cv without a database: %s", out)
	}
	if _, err := os.Stat(defaultDB); err == nil {
		t.Errorf("cv created %s", defaultDB)
	}
	// compare stores nothing either (it refused to run without a database file).
	if out := mustRun(t, "compare", "--label", "y", "--from", "d.csv", "--format", "csv"); !strings.Contains(out, "gaussian,25,25,") {
		t.Errorf("compare without a database: %s", out)
	}
	if _, err := os.Stat(defaultDB); err == nil {
		t.Errorf("compare created %s", defaultDB)
	}
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "d.csv")
	if out := mustRun(t, "models", "list", "--format", "csv"); !strings.Contains(out, "\nm,y,") {
		t.Errorf("models list after train: %s", out)
	}
}

// TestImportReplace: importing a model whose name is stored fails (exit 1, the stored model unchanged)
// unless --replace, and nb_import the same unless replace := true.
func TestImportReplace(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE a AS SELECT i % 2 = 0 AS y, sin(i) AS x FROM range(50) r(i);
		CREATE TABLE b AS SELECT i % 3 = 0 AS y, cos(i) AS x FROM range(80) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "a")
	mustRun(t, "models", "export", "m", "--output", "m.json")
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "b")
	_, errs, code := sqlnbRun(t, "models", "import", "m.json")
	if code != exitError || !strings.Contains(errs, `import "m": a model of that name is stored; import it under another name (--name, name :=) or replace it (--replace, replace := true)`) {
		t.Errorf("import over m: exit %d, %s", code, errs)
	}
	rows := func() string {
		return mustRun(t, "sql", "--format", "csv", "-c", "SELECT n_rows FROM nb_models() WHERE name = 'm'")
	}
	if got := rows(); got != "n_rows\n80\n" {
		t.Errorf("after a refused import: %q", got)
	}
	mustRun(t, "models", "import", "m.json", "--replace")
	if got := rows(); got != "n_rows\n50\n" {
		t.Errorf("after import --replace: %q", got)
	}
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "b")
	if _, errs, code := sqlnbRun(t, "sql", "-c", "CALL nb_import('m.json')"); code != exitError || !strings.Contains(errs, "a model of that name is stored") {
		t.Errorf("nb_import over m: exit %d, %s", code, errs)
	}
	mustRun(t, "sql", "-c", "CALL nb_import('m.json', replace := true)")
	if got := rows(); got != "n_rows\n50\n" {
		t.Errorf("after nb_import replace := true: %q", got)
	}
}

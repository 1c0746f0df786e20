package main

import (
	"strings"
	"testing"
)

// TestTrainColumnChecks: train warns on stderr about an identifier feature and a label with many classes,
// --exclude leaves the feature out, a label with more than 1000 classes fails (exit 1) saying to use
// --force, which trains it; nb_train returns the warnings and takes exclude := and force :=; cv takes the
// same flags.
func TestTrainColumnChecks(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `COPY (SELECT i AS id, ['red', 'white'][1 + i % 2] AS colour, (i % 2) * 2 + sin(i) AS acidity,
		round(8 + (i % 37) * 0.17, 2) AS alcohol FROM range(1, 2001) r(i)) TO 'wine.csv'`)
	_, errs, code := sqlnbRun(t, "train", "--model", "w", "--label", "colour", "--from", "wine.csv")
	if code != exitOK || !strings.Contains(errs, `warning: model "w": feature "id" has a different value in every row (2000 distinct values in 2000 rows read) and is named like an identifier`) ||
		!strings.Contains(errs, "--exclude id") || !strings.Contains(errs, "3 features") {
		t.Errorf("train with an id column: exit %d\n%s", code, errs)
	}
	_, errs, _ = sqlnbRun(t, "train", "--model", "w", "--label", "colour", "--from", "wine.csv", "--exclude", "id")
	if strings.Contains(errs, "warning") || !strings.Contains(errs, "2 features") {
		t.Errorf("--exclude id: %s", errs)
	}
	_, errs, code = sqlnbRun(t, "train", "--model", "w", "--label", "id", "--from", "wine.csv")
	if code != exitError || !strings.Contains(errs, `label column "id" has at least 2000 distinct values`) || !strings.Contains(errs, "--force") {
		t.Errorf("id as the label: exit %d, %s", code, errs)
	}
	_, errs, code = sqlnbRun(t, "train", "--model", "w", "--label", "id", "--from", "wine.csv", "--force")
	if code != exitOK || !strings.Contains(errs, `label column "id" has 2000 distinct values in 2000 rows (100%)`) {
		t.Errorf("--force: exit %d, %s", code, errs)
	}
	_, errs, code = sqlnbRun(t, "cv", "--label", "alcohol", "--from", "wine.csv", "--exclude", "id", "--folds", "3")
	if code != exitOK || strings.Contains(errs, `feature "id"`) {
		t.Errorf("cv --exclude: exit %d, %s", code, errs)
	}
	_, errs, code = sqlnbRun(t, "cv", "--label", "colour", "--from", "wine.csv", "--folds", "3")
	if code != exitOK || !strings.Contains(errs, `warning: model "cv": feature "id"`) {
		t.Errorf("cv warnings: exit %d, %s", code, errs)
	}
	out := mustRun(t, "sql", "--format", "csv", "-c", `SELECT features, warnings FROM nb_train('w2', 'wine.csv', 'colour')`)
	if !strings.Contains(out, `3,"['feature ""id"" has a different value in every row`) {
		t.Errorf("nb_train warnings: %s", out)
	}
	out = mustRun(t, "sql", "--format", "csv", "-c", `SELECT features, warnings FROM nb_train('w2', 'wine.csv', 'colour', exclude := ['id'])`)
	if out != "features,warnings\n2,[]\n" {
		t.Errorf("nb_train exclude: %q", out)
	}
	out = mustRun(t, "sql", "--format", "csv", "-c", `SELECT classes FROM nb_train('w3', 'wine.csv', 'id', force := true)`)
	if out != "classes\n2000\n" {
		t.Errorf("nb_train force: %q", out)
	}
}

// TestForeignNbSchema: a table nb.models of the user's (a schema nb for notebooks) is not taken for an old
// model store: train refuses, saying why and what to do, and leaves the table and the schema as they were
// (it was ALTERed to 17 columns and sqlnb's tables were created next to it, then an internal error).
func TestForeignNbSchema(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", "CREATE TABLE t AS SELECT (i % 2)::VARCHAR AS y, random() AS x FROM range(100) r(i); CREATE SCHEMA nb; CREATE TABLE nb.models(id INT, note VARCHAR)")
	_, errs, code := sqlnbRun(t, "train", "--model", "v", "--label", "y", "--from", "t")
	if code != exitError || !strings.Contains(errs, "nb.models that is not sqlnb's") {
		t.Errorf("exit %d: %s", code, errs)
	}
	// Another database's nb.models (attached) is not this one's: training here works.
	mustRun(t, "--db", "other.duckdb", "sql", "-c", "CREATE TABLE t AS SELECT (i % 2)::VARCHAR AS y, random() AS x FROM range(100) r(i)")
	mustRun(t, "--db", "other.duckdb", "sql", "-c", "ATTACH 'sqlnb.duckdb' AS u (READ_ONLY); CALL nb_train('v', 't', 'y')")
	// A view nb.models is refused too.
	mustRun(t, "--db", "view.duckdb", "sql", "-c", "CREATE TABLE t AS SELECT (i % 2)::VARCHAR AS y, random() AS x FROM range(100) r(i); CREATE SCHEMA nb; "+
		"CREATE VIEW nb.models AS SELECT 'a' AS name, 'b' AS label, 'c' AS label_type, 'd' AS source, 1 AS n_rows")
	if _, errs, code := sqlnbRun(t, "--db", "view.duckdb", "train", "--model", "v", "--label", "y", "--from", "t"); code != exitError || !strings.Contains(errs, "nb.models that is not sqlnb's") {
		t.Errorf("a view nb.models: exit %d: %s", code, errs)
	}
	if got := mustRun(t, "sql", "--format", "csv", "-c", "SELECT count(*) FILTER (WHERE table_name = 'models') AS models, count(*) AS tables, (SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'nb' AND table_name = 'models') AS cols FROM duckdb_tables() WHERE schema_name = 'nb'"); got != "models,tables,cols\n1,1,2\n" {
		t.Errorf("the schema nb after the refusal: %q", got)
	}
}

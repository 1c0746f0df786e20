package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// updateEnv runs in a temporary directory with testdata linked: sh runs a command line that must exit with
// want and returns its stdout and stderr together.
func updateEnv(t *testing.T) func(want int, args ...string) string {
	t.Helper()
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.Symlink(testdata, "testdata"); err != nil {
		t.Fatal(err)
	}
	return func(want int, args ...string) string {
		t.Helper()
		out, errs, code := sqlnbRun(t, args...)
		if code != want {
			t.Fatalf("sqlnb %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errs)
		}
		return out + errs
	}
}

// sameModels returns the number of rows of src (HouseVotes84) where models a and b give posteriors more than
// 1e-12 apart, and whether their row counts agree.
func sameModels(t *testing.T, sh func(int, ...string) string, a, b string) {
	t.Helper()
	out := sh(exitOK, "sql", "--format", "csv", "-c", `SELECT count(*) FILTER (WHERE abs(nb_proba('`+a+`', t, 'democrat') - nb_proba('`+b+`', t, 'democrat')) > 1e-12) AS differ,
		(SELECT n_rows FROM nb_models() WHERE name = '`+a+`') = (SELECT n_rows FROM nb_models() WHERE name = '`+b+`') AS rows FROM 'testdata/housevotes84/train.csv' t`)
	if out != "differ,rows\n0,true\n" {
		t.Errorf("models %q and %q differ:\n%s", a, b, out)
	}
}

// snapshot is a stored model as JSON (its statistics, hyperparameters and generation).
func snapshot(sh func(int, ...string) string, model string) string {
	return sh(exitOK, "models", "export", model)
}

// TestTrainAppendForget: train --append of the other rows gives the model of all rows, --forget of rows
// the model of the rest (posteriors to 1e-12); every refused command leaves the model as it was and says
// what differs.
func TestTrainAppendForget(t *testing.T) {
	sh := updateEnv(t)
	v := "testdata/housevotes84/train.csv"
	yes, rest := "FROM '"+v+"' WHERE crime = 'y'", "FROM '"+v+"' WHERE crime IS DISTINCT FROM 'y'"
	sh(exitOK, "train", "--model", "all", "--label", "party", "--from", v)
	sh(exitOK, "train", "--model", "yes", "--label", "party", "--from", yes)
	sh(exitOK, "train", "--model", "m", "--label", "party", "--from", yes)
	out := sh(exitOK, "train", "--model", "m", "--append", "--from", rest)
	if !strings.Contains(out, `appended 145 rows to "m" (0 skipped: NULL label): now 348 rows, 2 classes, 16 features (categorical)`) {
		t.Errorf("append: %s", out)
	}
	sameModels(t, sh, "m", "all")
	out = sh(exitOK, "train", "--model", "m", "--forget", "--label", "party", "--from", rest)
	if !strings.Contains(out, `forgot 145 rows of "m" (0 skipped: NULL label): now 203 rows, 2 classes`) {
		t.Errorf("forget: %s", out)
	}
	sameModels(t, sh, "m", "yes")

	before := snapshot(sh, "m")
	for _, c := range []struct {
		code int
		args []string
		want string
	}{
		{exitError, []string{"--forget", "--from", rest}, `cannot forget: model "m", class "democrat": the count would be`},
		{exitError, []string{"--append", "--from", rest, "--alpha", "2"}, "alpha differs; change it with sqlnb models set"},
		{exitError, []string{"--append", "--from", rest, "--features", "crime"}, `has the feature "handicapped-infants", which --features`},
		{exitError, []string{"--append", "--from", rest, "--kind", "bernoulli"}, `has the feature "handicapped-infants" of kind categorical, not bernoulli`},
		{exitError, []string{"--append", "--from", rest, "--label", "crime"}, `has the label column "party", not "crime"`},
		{exitError, []string{"--append", "--from", "SELECT * EXCLUDE (crime) " + rest}, `feature column "crime" is not in the source`},
		{exitError, []string{"--append", "--from", "SELECT * REPLACE (crime = 'y' AS crime) " + rest}, `categorical feature "crime" is VARCHAR in model "m" but BOOLEAN in the rows`},
		{exitError, []string{"--append", "--from", "SELECT * REPLACE (party = 'democrat' AS party) " + rest}, `label column "party" is VARCHAR in model "m" but BOOLEAN`},
		{exitUsage, []string{"--append", "--forget", "--from", rest}, "--append and --forget exclude each other"},
	} {
		out := sh(c.code, append([]string{"train", "--model", "m"}, c.args...)...)
		if !strings.Contains(out, c.want) {
			t.Errorf("train %v: %s, want %q", c.args, out, c.want)
		}
	}
	if after := snapshot(sh, "m"); after != before {
		t.Errorf("a refused command changed the model")
	}
	out = sh(exitError, "train", "--model", "nope", "--append", "--from", rest)
	if !strings.Contains(out, `unknown model "nope"`) {
		t.Errorf("append to an unknown model: %s", out)
	}
	sh(exitOK, "train", "--model", "lr", "--kind", "logistic", "--label", "label", "--from", "SELECT * EXCLUDE (id) FROM 'testdata/fixtures/wine.csv'")
	out = sh(exitError, "train", "--model", "lr", "--append", "--from", "SELECT * EXCLUDE (id) FROM 'testdata/fixtures/wine.csv'")
	if !strings.Contains(out, "not mergeable") {
		t.Errorf("append to a logistic model: %s", out)
	}
	out = sh(exitUsage, "train", "--model", "x", "--from", v)
	if !strings.Contains(out, `required flag(s) "label" not set`) {
		t.Errorf("train without --label: %s", out)
	}
}

// TestMerge: sqlnb merge of models of disjoint rows is the model of all rows (posteriors to 1e-12); it
// replaces one of its inputs, refuses another stored model unless --replace, and refuses models that differ
// and fitted models, leaving everything as it was.
func TestMerge(t *testing.T) {
	sh := updateEnv(t)
	v := "testdata/housevotes84/train.csv"
	sh(exitOK, "train", "--model", "all", "--label", "party", "--from", v)
	sh(exitOK, "train", "--model", "a", "--label", "party", "--from", "FROM '"+v+"' WHERE crime = 'y'")
	sh(exitOK, "train", "--model", "b", "--label", "party", "--from", "FROM '"+v+"' WHERE crime IS DISTINCT FROM 'y'")
	sh(exitOK, "train", "--model", "other", "--label", "party", "--from", v, "--alpha", "3")
	out := sh(exitOK, "merge", "--into", "u", "a", "b")
	if !strings.Contains(out, `merged "a", "b" into "u": 348 rows, 2 classes, 16 features (categorical)`) {
		t.Errorf("merge: %s", out)
	}
	sameModels(t, sh, "u", "all")

	before := snapshot(sh, "other")
	for _, c := range []struct {
		code int
		args []string
		want string
	}{
		{exitError, []string{"--into", "other", "a", "b"}, `model "other" is stored and is not one of the models merged`},
		{exitError, []string{"--into", "c", "a", "other"}, `models "a" and "other" have different alpha`},
		{exitError, []string{"--into", "c", "a", "a"}, `model "a" is named twice`},
		{exitError, []string{"--into", "c", "a", "nope"}, `unknown model "nope"`},
		{exitUsage, []string{"--into", "c", "a"}, "requires at least 2 arg(s)"},
	} {
		out := sh(c.code, append([]string{"merge"}, c.args...)...)
		if !strings.Contains(out, c.want) {
			t.Errorf("merge %v: %s, want %q", c.args, out, c.want)
		}
	}
	if snapshot(sh, "other") != before || strings.Contains(sh(exitOK, "models", "list"), " c ") {
		t.Errorf("a refused merge changed the store")
	}
	sh(exitOK, "merge", "--into", "other", "--replace", "a", "b")
	sameModels(t, sh, "other", "all")
	sh(exitOK, "merge", "--into", "a", "a", "b")
	sameModels(t, sh, "a", "all")

	wine := "SELECT * EXCLUDE (id) FROM 'testdata/fixtures/wine.csv'"
	sh(exitOK, "train", "--model", "lr1", "--kind", "logistic", "--label", "label", "--from", wine+" WHERE id % 2 = 0")
	sh(exitOK, "train", "--model", "lr2", "--kind", "logistic", "--label", "label", "--from", wine+" WHERE id % 2 = 1")
	if out := sh(exitError, "merge", "--into", "lr", "lr1", "lr2"); !strings.Contains(out, "not mergeable") {
		t.Errorf("merging logistic models: %s", out)
	}
}

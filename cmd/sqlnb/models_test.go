package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestModelsShowLinearAndFit: `models show --linear` lists the intercept and one weight per feature of a
// two-class model and refuses a model without a linear form; `models show` of a logistic model reports its
// Newton steps; `compare` refuses an unknown kind as a usage error.
func TestModelsShowLinearAndFit(t *testing.T) {
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.Symlink(testdata, "testdata"); err != nil {
		t.Fatal(err)
	}
	sh := func(want int, args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &out); code != want {
			t.Fatalf("sqlnb %v: exit %d, want %d\n%s", args, code, want, out.String())
		}
		return out.String()
	}
	cancer := "SELECT * EXCLUDE (id, p_malignant, p_benign, predicted) FROM 'testdata/fixtures/sklearn_breast_cancer.csv'"
	sh(exitOK, "train", "--model", "pooled", "--label", "label", "--variance", "pooled", "--from", cancer)
	out := sh(exitOK, "models", "show", "pooled", "--linear", "--format", "csv")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 32 || lines[0] != "class,feature,value,weight" || !strings.HasPrefix(lines[1], "malignant,,,") {
		t.Errorf("models show --linear: %d lines, %q ...", len(lines), lines[:2])
	}
	sh(exitOK, "train", "--model", "lr", "--label", "label", "--kind", "logistic", "--from", cancer)
	if out := sh(exitOK, "models", "show", "lr", "--max-rows", "2"); !strings.Contains(out, "Newton steps") || !strings.Contains(out, "penalty l2, C 1") {
		t.Errorf("models show of a logistic model: %s", out)
	}
	// An unknown models subcommand is a usage error with a suggestion (cobra printed the help and exited 0, so
	// a script's `sqlnb models dorp m && echo dropped` went on as if it had); rm is drop.
	if out := sh(exitUsage, "models", "dorp", "lr"); !strings.Contains(out, `unknown command "dorp"`) || !strings.Contains(out, "did you mean drop") {
		t.Errorf("models dorp: %s", out)
	}
	sh(exitOK, "models")
	sh(exitOK, "train", "--model", "gone", "--label", "label", "--from", cancer)
	sh(exitOK, "models", "rm", "gone")
	if out := sh(exitOK, "models", "ls", "--format", "csv"); strings.Contains(out, "gone") {
		t.Errorf("models rm left the model: %s", out)
	}
	// models set cannot change what fitted the regression: its help does not offer those flags, and given
	// one it says to train again.
	if out := sh(exitOK, "models", "set", "--help"); strings.Contains(out, "--C ") || strings.Contains(out, "--max-iter") || !strings.Contains(out, "--alpha") {
		t.Errorf("models set --help offers the fit's flags:\n%s", out)
	}
	if out := sh(exitError, "models", "set", "lr", "--C", "0.5"); !strings.Contains(out, "train it again") {
		t.Errorf("models set --C of a logistic model: %s", out)
	}
	sh(exitOK, "train", "--model", "classvar", "--label", "label", "--from", cancer)
	if out := sh(exitError, "models", "show", "classvar", "--linear"); !strings.Contains(out, "variance per class") {
		t.Errorf("models show --linear of a class-variance model: %s", out)
	}
	if out := sh(exitUsage, "compare", "--from", cancer, "--label", "label", "--kinds", "gaussian,nope"); !strings.Contains(out, `"nope"`) {
		t.Errorf("compare with an unknown kind: %s", out)
	}
	for _, c := range []struct{ kinds, want string }{
		{"auto", "not auto or an empty entry"}, {"gaussian,", "not auto or an empty entry"}, {"lda,lda", "lda is named twice"}} {
		if out := sh(exitUsage, "compare", "--from", cancer, "--label", "label", "--kinds", c.kinds); !strings.Contains(out, c.want) || strings.Contains(out, "<nil>") {
			t.Errorf("compare --kinds %s: %s", c.kinds, out)
		}
	}
	if out := sh(exitUsage, "compare", "--from", cancer, "--label", "label", "--repeats", "0"); !strings.Contains(out, "at least 1 split") {
		t.Errorf("compare --repeats 0: %s", out)
	}
	// --exclude id is --features with every other column.
	withID := "SELECT * EXCLUDE (p_malignant, p_benign, predicted) FROM 'testdata/fixtures/sklearn_breast_cancer.csv'"
	header, err := os.ReadFile("testdata/fixtures/sklearn_breast_cancer.csv")
	if err != nil {
		t.Fatal(err)
	}
	var feats []string
	for _, c := range strings.Split(strings.SplitN(string(header), "\n", 2)[0], ",") {
		if c = strings.TrimSpace(c); !slices.Contains([]string{"id", "label", "p_malignant", "p_benign", "predicted"}, c) {
			feats = append(feats, c)
		}
	}
	excluded := sh(exitOK, "compare", "--from", withID, "--label", "label", "--kinds", "gaussian,lda", "--exclude", "id", "--format", "csv")
	listed := sh(exitOK, "compare", "--from", withID, "--label", "label", "--kinds", "gaussian,lda", "--features", strings.Join(feats, ","), "--format", "csv")
	table := func(out string) string { // kind, size, n_train, test_error of each point (the log loss's sum may
		// differ in its last digit from run to run, as DuckDB's threads add in another order)
		var cols []string
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Split(line, ","); len(f) > 4 {
				cols = append(cols, strings.Join(f[:4], ","))
			}
		}
		return strings.Join(cols, "\n")
	}
	if table(excluded) != table(listed) || strings.Count(excluded, "\n") != 10 {
		t.Errorf("compare --exclude id:\n%s\nwith --features:\n%s", excluded, listed)
	}
	for _, frac := range []string{"0", "1", "-0.5"} {
		if out := sh(exitUsage, "compare", "--from", cancer, "--label", "label", "--test", frac); !strings.Contains(out, "must be in (0, 1)") {
			t.Errorf("compare --test %s: %s", frac, out)
		}
	}
}

// TestModelsShowEmptyClass: `models show` and `models show --linear` list a class or a category named "" as
// "" and no class or value (a prior's, the unseen mass's, the intercept's) as null, as nb_show does.
func TestModelsShowEmptyClass(t *testing.T) {
	t.Chdir(t.TempDir())
	sh := func(args ...string) []map[string]any {
		t.Helper()
		var out, errs bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errs); code != exitOK {
			t.Fatalf("sqlnb %v: exit %d\n%s", args, code, errs.String())
		}
		var rows []map[string]any
		if err := json.Unmarshal(out.Bytes(), &rows); err != nil && out.Len() > 0 {
			t.Fatalf("sqlnb %v: %v\n%s", args, err, out.String())
		}
		return rows
	}
	sh("train", "--model", "e", "--label", "y", "--from", `SELECT CASE WHEN i % 5 < 2 + i % 2 THEN '' ELSE 'u' END AS cat,
		CASE WHEN i % 2 = 0 THEN '' ELSE 'A' END AS y FROM range(100) r(i)`)
	quote := func(v any) string { // JSON null as <nil>
		if s, ok := v.(string); ok {
			return strconv.Quote(s)
		}
		return fmt.Sprint(v)
	}
	var got []string
	for _, r := range sh("models", "show", "e", "--format", "json") {
		got = append(got, fmt.Sprint(r["parameter"], " ", quote(r["class"]), " ", quote(r["value"])))
	}
	want := []string{`prior "" <nil>`, `prior "A" <nil>`, `probability "" ""`, `probability "" "u"`, `unseen "" <nil>`,
		`probability "A" ""`, `probability "A" "u"`, `unseen "A" <nil>`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("models show: got %q, want %q", got, want)
	}
	got = nil
	for _, r := range sh("models", "show", "e", "--linear", "--format", "json") {
		got = append(got, quote(r["feature"])+" "+quote(r["value"]))
	}
	if want := []string{`<nil> <nil>`, `"cat" ""`, `"cat" "u"`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("models show --linear: got %q, want %q", got, want)
	}
}

// TestStdinDash: "-" names standard input for sql and models import (it was opened as a file named "-").
func TestStdinDash(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errs bytes.Buffer
	if code := run([]string{"--db", ":memory:", "sql", "--format", "csv", "-"}, strings.NewReader("SELECT 42 AS x"), &out, &errs); code != exitOK || out.String() != "x\n42\n" {
		t.Errorf("sql -: exit %d, %q %s", code, out.String(), errs.String())
	}
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "SELECT i % 2 AS y, i * 1.5 AS x FROM range(20) r(i)")
	json := mustRun(t, "models", "export", "m")
	out.Reset()
	errs.Reset()
	if code := run([]string{"--db", "other.duckdb", "models", "import", "-", "--name", "copy"}, strings.NewReader(json), &out, &errs); code != exitOK {
		t.Errorf("models import -: exit %d, %s", code, errs.String())
	}
	if list := mustRun(t, "--db", "other.duckdb", "models", "list", "--format", "csv"); !strings.Contains(list, "\ncopy,") {
		t.Errorf("after import -: %s", list)
	}
}

// TestUpgradeNotice: a command that opens a model store of an earlier format upgrades it for good, and says
// so once (it was silent: an older sqlnb then could not read the file, with no word of why); the next
// command says nothing, and models upgrade on it has nothing to do.
func TestUpgradeNotice(t *testing.T) {
	testdata, err := filepath.Abs("../../testdata/v1store/v1.duckdb.gz")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	f, err := os.Open(testdata)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("old.duckdb", data, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"upgraded the model store in old.duckdb from format version 1 to", ""} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"--db", "old.duckdb", "sql", "-c", "SELECT 1"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if got := stderr.String(); want == "" && got != "" || want != "" && strings.Count(got, want) != 1 {
			t.Errorf("run %d: stderr %q, want %q once", i, got, want)
		}
	}
	var stdout, stderr bytes.Buffer
	run([]string{"--db", "old.duckdb", "models", "upgrade"}, strings.NewReader(""), &stdout, &stderr)
	if !strings.Contains(stderr.String(), "nothing to do") {
		t.Errorf("models upgrade after the upgrade: %q", stderr.String())
	}
}

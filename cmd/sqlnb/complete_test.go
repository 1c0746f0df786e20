package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompleteModelFlag: `sqlnb __complete` (cobra's shell completion) offers the models of --db for
// --model and for `models show`, and creates no database file when there is none.
func TestCompleteModelFlag(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	db := filepath.Join(dir, "m.duckdb")
	var out, errOut bytes.Buffer
	if code := run([]string{"--db", db, "sql", "-c", "CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(10) r(i); " +
		"CALL nb_train('alpha_model', 't', 'y'); CALL nb_train('beta_model', 't', 'y'); SELECT 1"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatal(errOut.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "--db", db, "predict", "--model", ""}, "alpha_model\nbeta_model\n:4\n"},
		{[]string{"__complete", "--db", db, "eval", "--model", "b"}, "beta_model\n:4\n"},
		{[]string{"__complete", "--db", db, "models", "show", "al"}, "alpha_model\n:4\n"},
		{[]string{"__complete", "--db", filepath.Join(dir, "none.duckdb"), "predict", "--model", ""}, ":4\n"},
		{[]string{"__complete", "predict", "--model", ""}, ":4\n"}, // the default ./sqlnb.duckdb does not exist
	} {
		out.Reset()
		errOut.Reset()
		if code := run(c.args, strings.NewReader(""), &out, &errOut); code != 0 || out.String() != c.want {
			t.Errorf("sqlnb %v: exit %d, %q; want %q (%s)", c.args, code, out.String(), c.want, errOut.String())
		}
	}
	for _, f := range []string{"none.duckdb", "sqlnb.duckdb"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("completion created %s", f)
		}
	}
}

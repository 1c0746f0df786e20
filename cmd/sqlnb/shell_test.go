package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellScript runs `sqlnb shell` with a script on stdin (not a terminal): statements across lines,
// every dot command, results on stdout, and exit status 1 at the first error.
func TestShellScript(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("inner.sql", []byte("SELECT 'from .read' AS src;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `CREATE TABLE t AS SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS y, i % 2 + 0.1 * i AS x FROM range(20) r(i);
CALL nb_train('m', 't', 'y');
.tables
.schema t
.models
.mode line
SELECT nb_predict('m', {'x': 0.2}) AS p,
       NULL AS n;
.mode markdown
SELECT 1 AS one;
.read inner.sql
.output out.csv
.mode csv
SELECT 42 AS answer;
.output
.timer on
SELECT 'timed' AS z;
.timer off
.help
`
	f := filepath.Join(dir, "script.sql")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _ := os.Open(f)
	defer in.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"shell", filepath.Join(dir, "s.duckdb")}, in, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"│ t ", "CREATE TABLE t(y VARCHAR, x DECIMAL", "│ m ", "p = a\nn = NULL", "| one |\n|---|\n| 1 |",
		"from .read", "z\ntimed", ".timer on|off"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "answer") {
		t.Errorf(".output did not redirect: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.csv")); string(b) != "answer\n42\n" {
		t.Errorf("out.csv = %q", b)
	}
	if !strings.Contains(stderr.String(), "Run Time: ") {
		t.Errorf(".timer printed nothing: %q", stderr.String())
	}
	// The first error ends a script with status 1; later statements do not run.
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"shell", ":memory:"}, strings.NewReader("SELECT 1 AS ok;\n.bogus\nSELECT 2 AS never;\n"), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "unknown dot command .bogus") || strings.Contains(stdout.String(), "never") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

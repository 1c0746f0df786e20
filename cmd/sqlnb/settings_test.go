package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMemoryLimitApplied: --memory-limit sets DuckDB's memory_limit in every command, seen from inside the
// statements each command runs (a source query that reads current_setting('memory_limit')): sql, sql
// --read-only, shell, train (the setting becomes a category of the stored model), predict (a kept column),
// eval (the true label, in the per-class table) and cv (the classes named by the error for an unknown
// --pos-label). Without the flag, eval
// and cv run at 512MB and the others at DuckDB's default. DuckDB shows 300MB as 286.1 MiB.
func TestMemoryLimitApplied(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['p', 'q'][1 + i % 2] AS y, sin(i) + i % 2 AS x FROM range(200) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "d")
	withLimit := `SELECT *, current_setting('memory_limit') AS lim FROM d`
	cvLimit := `SELECT current_setting('memory_limit') || ' ' || y AS y, x FROM d`
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"sql", []string{"--memory-limit", "300MB", "sql", "--format", "csv", "-c", "SELECT current_setting('memory_limit') AS m"}, "", "286.1 MiB"},
		{"sql read-only", []string{"--memory-limit", "300MB", "sql", "--read-only", "--format", "csv", "-c", "SELECT current_setting('memory_limit') AS m"}, "", "286.1 MiB"},
		{"shell", []string{"--memory-limit", "300MB", "shell", "sqlnb.duckdb"}, "SELECT current_setting('memory_limit') AS m;", "286.1 MiB"},
		{"predict", []string{"--memory-limit", "300MB", "predict", "--model", "m", "--from", withLimit, "--columns", "lim", "--format", "csv"}, "", "286.1 MiB,"},
		{"eval", []string{"--memory-limit", "300MB", "eval", "--model", "m", "--from", withLimit, "--label", "lim", "--what", "per-class", "--format", "csv"}, "", "286.1 MiB,"},
		{"eval default", []string{"eval", "--model", "m", "--from", withLimit, "--label", "lim", "--what", "per-class", "--format", "csv"}, "", "244.1 MiB,"},
		{"sql default", []string{"sql", "--format", "csv", "-c", "SELECT current_setting('memory_limit') <> '244.1 MiB' AS duckdb_default"}, "", "true"},
		{"cv default", []string{"cv", "--from", cvLimit, "--label", "y", "--pos-label", "none"}, "", `(classes: "244.1 MiB p", "244.1 MiB q")`},
		{"cv", []string{"--memory-limit", "300MB", "cv", "--from", cvLimit, "--label", "y", "--pos-label", "none"}, "", `(classes: "286.1 MiB p", "286.1 MiB q")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			run(c.args, strings.NewReader(c.stdin), &out, &out)
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("sqlnb %s: want %q in\n%s", strings.Join(c.args, " "), c.want, out.String())
			}
		})
	}
	// train: the setting while training is a category of the model.
	mustRun(t, "--memory-limit", "300MB", "train", "--model", "lim", "--label", "y", "--from", withLimit)
	if got := mustRun(t, "sql", "--format", "csv", "-c", "SELECT DISTINCT value FROM nb.categorical WHERE model = 'lim' AND feature = 'lim'"); got != "value\n286.1 MiB\n" {
		t.Errorf("train --memory-limit 300MB: the model saw %q", got)
	}
	_, errs, code := sqlnbRun(t, "--memory-limit", "lots", "sql", "-c", "SELECT 1")
	if code != exitUsage || !strings.Contains(errs, `--memory-limit "lots"`) {
		t.Errorf("--memory-limit lots: exit %d, %s", code, errs)
	}
}

// TestTempDir: --temp-dir is DuckDB's temp_directory, and what a statement spills goes there; without it,
// sqlnb's own directory in $TMPDIR takes the spill and is gone when the command ends.
func TestTempDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	spill := filepath.Join(dir, "spill")
	if got := mustRun(t, "--db", ":memory:", "--temp-dir", spill, "sql", "--format", "csv", "-c", "SELECT current_setting('temp_directory') AS t"); got != "t\n"+spill+"\n" {
		t.Errorf("--temp-dir: %q", got)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// A temporary table of 4M rows in 16MB spills.
	got := mustRun(t, "--db", ":memory:", "--memory-limit", "16MB", "sql", "--format", "csv", "-c",
		"CREATE TEMP TABLE big AS SELECT i, hash(i) AS h FROM range(4000000) r(i); "+
			"SELECT count(*) > 0 AS spilled, bool_and(starts_with(path, $$"+tmp+"/sqlnb-spill-$$)) AS ours FROM duckdb_temporary_files()")
	if got != "spilled,ours\ntrue,true\n" {
		t.Errorf("a temporary table beyond the memory limit: %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "sqlnb-spill-*")); len(left) > 0 {
		t.Errorf("sqlnb left its temporary directory behind: %v", left)
	}
}

// TestSummaryAndQuiet: with stderr not a terminal, a command writes no progress bar, only its one-line
// summary (train, predict --output, eval, cv, export); --quiet silences the summary too.
func TestSummaryAndQuiet(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['p', 'q'][1 + i % 2] AS y, sin(i) + i % 2 AS x FROM range(200) r(i)`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--model", "m", "--label", "y", "--from", "d"}, `trained "m" on 200 rows`},
		{[]string{"predict", "--model", "m", "--from", "d", "--output", "out.parquet"}, `scored 200 rows with "m" into out.parquet in `},
		{[]string{"eval", "--model", "m", "--from", "d", "--format", "csv"}, `evaluated "m" on 200 rows in `},
		{[]string{"eval", "--model", "m", "--from", "d", "--format", "csv", "--no-curves"}, `evaluated "m" on 200 rows in `},
		{[]string{"cv", "--label", "y", "--from", "d", "--auc"}, "5-fold cv in "},
		{[]string{"export", "--model", "m", "--sql", "m.sql"}, `wrote duckdb scoring SQL for "m" to m.sql`},
	} {
		_, errs, code := sqlnbRun(t, c.args...)
		if code != exitOK || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, c.want) || strings.ContainsAny(errs, "\r\x1b|") {
			t.Errorf("sqlnb %s: exit %d, stderr %q; want one line starting %q", strings.Join(c.args, " "), code, errs, c.want)
		}
		_, errs, code = sqlnbRun(t, append([]string{"--quiet"}, c.args...)...)
		if code != exitOK || errs != "" {
			t.Errorf("sqlnb --quiet %s: exit %d, stderr %q", strings.Join(c.args, " "), code, errs)
		}
	}
}

// TestNoCurvesFlags: eval --no-curves prints every metric but ROC-AUC and average precision; it contradicts
// --plot, and in cv --auc and --metric roc_auc (exit 2).
func TestNoCurvesFlags(t *testing.T) {
	t.Chdir(t.TempDir())
	mustRun(t, "sql", "-c", `CREATE TABLE d AS SELECT ['p', 'q'][1 + i % 2] AS y, sin(i) + i % 2 AS x FROM range(200) r(i)`)
	mustRun(t, "train", "--model", "m", "--label", "y", "--from", "d")
	out := mustRun(t, "eval", "--model", "m", "--from", "d", "--format", "csv", "--no-curves")
	if strings.Contains(out, "roc_auc") || strings.Contains(out, "average_precision") || !strings.Contains(out, "log_loss") {
		t.Errorf("eval --no-curves:\n%s", out)
	}
	for _, args := range [][]string{
		{"eval", "--model", "m", "--from", "d", "--no-curves", "--plot", "pics"},
		{"cv", "--label", "y", "--from", "d", "--no-curves", "--auc"},
		{"cv", "--label", "y", "--from", "d", "--no-curves", "--metric", "roc_auc"},
	} {
		if _, errs, code := sqlnbRun(t, args...); code != exitUsage || !strings.Contains(errs, "--no-curves") {
			t.Errorf("sqlnb %s: exit %d, %s", strings.Join(args, " "), code, errs)
		}
	}
	if _, err := os.Stat("pics"); err == nil {
		t.Error("eval --no-curves --plot wrote pictures")
	}
}

// TestSweepSpills: a spill directory whose sqlnb process is gone (killed with SIGKILL) and idle for an hour
// is removed by the next sqlnb command; one of a live process stays, and so does one changed within the
// hour (a process of another PID namespace sharing /tmp).
func TestSweepSpills(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(tmp, fmt.Sprintf("sqlnb-spill-%d-abcdef", dead.Process.Pid))
	live := filepath.Join(tmp, fmt.Sprintf("sqlnb-spill-%d-abcdef", os.Getppid()))
	recent := filepath.Join(tmp, fmt.Sprintf("sqlnb-spill-%d-fedcba", dead.Process.Pid)) // another PID namespace's, spilling
	old := time.Now().Add(-2 * time.Hour)
	for _, d := range []string{gone, live, recent} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if d != recent {
			for _, p := range []string{filepath.Join(d, "x"), d} {
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	mustRun(t, "--db", ":memory:", "sql", "-c", "SELECT 1")
	if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory of a process that is gone is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the directory of a live process was removed: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a directory changed within the hour was removed: %v", err)
	}
}

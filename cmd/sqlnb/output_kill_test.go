//go:build integration

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPredictOutputIsAtomic: `predict --output` replaces its file only when the file is complete. Killed
// with SIGKILL in the middle, or failing for want of space (a 2 MB tmpfs, or a file-size limit where tmpfs
// cannot be mounted), it leaves the old file byte for byte and no other file in the directory; in every
// format. Run by make test-integration (it needs the built binary, SQLNB_BIN).
func TestPredictOutputIsAtomic(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	dir := t.TempDir()
	db := filepath.Join(dir, "big.duckdb")
	sqlnbCmd(t, dir, "--db", db, "sql", "-c", `CREATE TABLE d AS SELECT CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS y,
		sin(i) AS x, cos(i) AS z, ['u', 'v', 'w'][1 + i % 3] AS c FROM range(4000000) r(i); SELECT 1`)
	sqlnbCmd(t, dir, "--db", db, "train", "--model", "m", "--label", "y", "--from", "d")
	for _, ext := range []string{"csv", "json", "parquet"} {
		outDir := filepath.Join(dir, "out_"+ext)
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(outDir, "scored."+ext)
		old := []byte("the previous file\n")
		if err := os.WriteFile(target, old, 0o644); err != nil {
			t.Fatal(err)
		}
		// Killed halfway through a run: how long a whole run takes here is measured first (a fixed delay
		// missed a parquet run that had finished in under 1.5 s).
		start := time.Now()
		sqlnbCmd(t, dir, "--db", db, "predict", "--model", "m", "--from", "d", "--proba", "--output", filepath.Join(dir, "whole."+ext))
		whole := time.Since(start)
		cmd := exec.Command(bin, "--db", db, "predict", "--model", "m", "--from", "d", "--proba", "--output", target)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(whole / 2)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		checkUntouched(t, "killed "+ext, outDir, target, old)
	}
	// A full disk: a 2 MB tmpfs when this machine lets us mount one, else a 2 MB file-size limit.
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := ""
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", full).CombinedOutput(); err == nil {
		defer exec.Command("umount", full).Run()
		t.Log("writing to a 2 MB tmpfs")
	} else {
		prefix = "ulimit -f 4096; " // 4096 blocks of 512 bytes
		t.Logf("cannot mount tmpfs (%s): writing under a 2 MB file-size limit", strings.TrimSpace(string(out)))
	}
	target := filepath.Join(full, "scored.csv")
	old := []byte("the previous file\n")
	if err := os.WriteFile(target, old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", prefix+`exec "$0" --db "$1" predict --model m --from d --proba --output "$2"`, bin, db, target)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("predict into a full disk succeeded: %s", out)
	}
	t.Logf("predict into a full disk: %v %s", err, strings.TrimSpace(string(out)))
	checkUntouched(t, "full disk", full, target, old)
}

// checkUntouched: target still holds old and it is the only file in dir.
func checkUntouched(t *testing.T, what, dir, target string, old []byte) {
	t.Helper()
	got, err := os.ReadFile(target)
	if err != nil || string(got) != string(old) {
		t.Errorf("%s: the output file was changed (%d bytes, %v)", what, len(got), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s: the directory holds %v, want only %s", what, names, filepath.Base(target))
	}
}

// TestReadersShareAWriterWaits: read-only commands (sql --read-only, models list, predict, eval) open the
// database read-only, so they run at the same time on one file; a writer meanwhile gets DuckDB's lock error
// reworded: who holds the database and what to do.
func TestReadersShareAWriterWaits(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	dir, dbPath := setupModel(t)
	long := exec.Command(bin, "--db", dbPath, "sql", "--read-only", "-c", "SELECT count(*) FROM range(3000000000) r(i) WHERE i % 7 = 0")
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = long.Process.Kill(); _ = long.Wait() }()
	time.Sleep(700 * time.Millisecond)
	sqlnbCmd(t, dir, "--db", dbPath, "models", "list")
	sqlnbCmd(t, dir, "--db", dbPath, "predict", "--model", "ex", "--from", "s", "--format", "csv")
	sqlnbCmd(t, dir, "--db", dbPath, "eval", "--model", "ex", "--from", "d")
	cmd := exec.Command(bin, "--db", dbPath, "models", "set", "ex", "--alpha", "2")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is in use by sqlnb") || !strings.Contains(string(out), "wait") {
		t.Errorf("a writer while a reader runs: %v\n%s", err, out)
	}
	// The shell: read-only it shares the file; read-write it says who holds it (it gave DuckDB's raw
	// "IO Error: Could not set lock on file …").
	cmd = exec.Command(bin, "shell", "--read-only", dbPath)
	cmd.Stdin = strings.NewReader("SELECT count(*) AS models FROM nb_models();\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "models") {
		t.Errorf("shell --read-only while a reader runs: %v\n%s", err, out)
	}
	cmd = exec.Command(bin, "shell", dbPath)
	cmd.Stdin = strings.NewReader("SELECT 1;\n")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "is in use by sqlnb") || strings.Contains(string(out), "IO Error") {
		t.Errorf("shell (read-write) while a reader runs: %v\n%s", err, out)
	}
}

// TestTerminatedRemovesSpill: SIGINT (Ctrl-C), SIGTERM (timeout, systemd, docker stop) and SIGHUP (a closed
// terminal) cancel the command: sqlnb says what stopped it, exits with 128 + the signal's number, as shells
// report a command a signal ended (it said "context canceled" and exited 1, a review), and removes its spill
// directory. Run by make test-integration (SQLNB_BIN).
func TestTerminatedRemovesSpill(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} { // HUP: the terminal closed, ssh dropped
		tmp := t.TempDir()
		cmd := exec.Command(bin, "--db", ":memory:", "--memory-limit", "16MB", "sql", "-c",
			"CREATE TEMP TABLE big AS SELECT i, hash(i) AS h FROM range(200000000) r(i)")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			if spills, _ := filepath.Glob(filepath.Join(tmp, "sqlnb-spill-*")); len(spills) > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = cmd.Process.Signal(sig)
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) || !strings.Contains(stderr.String(), "sqlnb: stopped by ") ||
			strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("after %v: %v, want exit status %d\n%s", sig, err, 128+int(sig), stderr.String())
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "sqlnb-spill-*")); len(left) > 0 {
			t.Errorf("%v left the spill directory: %v", sig, left)
		}
	}
}

// TestUnwritableDatabase: a database this user cannot write (the file, or its directory, where DuckDB
// writes the .wal) is said so before anything runs, and the read-only commands still work on it; it was
// DuckDB's "Cannot open file …: Permission denied", or for a directory "Failed to commit" after a whole
// training (a review). As root the commands run as nobody (root may write anything); otherwise as the user,
// with the permissions taken away.
func TestUnwritableDatabase(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	dir, dbPath := setupModel(t)
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"--db", dbPath}, args...)...)
		cmd.Dir = os.TempDir()
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// Readable by anyone, writable by none but root: the file, then the directory (t.TempDir's are 0700).
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dbPath, 0o444); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	for _, step := range []struct{ what, want string }{
		{"file", "the file is not writable"},
		{"directory", "its directory " + dir + " (where DuckDB writes shop.duckdb.wal)"},
	} {
		if step.what == "directory" {
			os.Chmod(dbPath, 0o666)
			os.Chmod(dir, 0o555)
		}
		out, err := run("train", "--model", "ex2", "--label", "my label", "--from", "d")
		if err == nil || !strings.Contains(out, "cannot be written by this user: "+step.want) || strings.Contains(out, "IO Error") {
			t.Errorf("train, unwritable %s: %v\n%s", step.what, err, out)
		}
		if out, err := run("models", "list"); err != nil || !strings.Contains(out, "ex") {
			t.Errorf("models list, unwritable %s: %v\n%s", step.what, err, out)
		}
	}
}

// TestSignalEndsBlockedRead: a command blocked in a read that cancelling cannot end (a FIFO with no writer as
// the source) exits forceAfter after SIGTERM, or at once on a second Ctrl-C, with the signal's status; it
// stayed blocked through TERM and INT until SIGKILL.
func TestSignalEndsBlockedRead(t *testing.T) {
	bin := mustEnv(t, "SQLNB_BIN")
	for _, sigs := range [][]syscall.Signal{{syscall.SIGTERM}, {syscall.SIGINT, syscall.SIGINT}} {
		fifo := filepath.Join(t.TempDir(), "in.csv")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "--db", ":memory:", "sql", "-c", "SELECT count(*) FROM read_csv('"+fifo+"')")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		start := time.Now()
		for _, sig := range sigs {
			_ = cmd.Process.Signal(sig)
			time.Sleep(100 * time.Millisecond)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var exit *exec.ExitError
			limit := forceAfter + 3*time.Second
			if len(sigs) > 1 {
				limit = 2 * time.Second
			}
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sigs[0]) || time.Since(start) > limit || !strings.Contains(stderr.String(), "did not end within") {
				t.Errorf("%v: %v after %v, want exit %d within %v\n%s", sigs, err, time.Since(start), 128+int(sigs[0]), limit, stderr.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%v: still running 30 s later", sigs)
		}
	}
}

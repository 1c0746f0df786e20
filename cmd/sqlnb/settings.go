package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/udf"
)

// boundedMemory is the memory_limit of eval and cv when --memory-limit is not given: they sort every score,
// and spilling keeps them in bounded memory on sources of any size (peak RSS under 1 GiB at 50M rows, see
// README "Performance").
const boundedMemory = "256MB"

// configure applies the global settings to a database sqlnb opened: DuckDB's memory_limit (--memory-limit,
// else the command's default, else DuckDB's own) and temp_directory (--temp-dir, else a directory of
// sqlnb's own in $TMPDIR that DuckDB creates when it first spills and sqlnb removes when it ends).
func (e *env) configure(db *udf.DB) error {
	ctx := context.Background()
	limit := e.memoryLimit
	if limit == "" {
		limit = e.memoryDefault
	}
	if limit != "" {
		if _, err := db.ExecContext(ctx, queries.SQL("settings_memory_limit.sql"), limit); err != nil {
			return usageError{fmt.Errorf("--memory-limit %q: %v", limit, err)}
		}
	}
	dir := e.tempDir
	if dir == "" {
		dir = e.spillDir()
	}
	if _, err := db.ExecContext(ctx, queries.SQL("settings_temp_directory.sql"), dir); err != nil {
		return usageError{fmt.Errorf("--temp-dir %q: %v", dir, err)}
	}
	return nil
}

// spillDir names sqlnb's own temporary directory (not created here: DuckDB creates it when it spills).
func (e *env) spillDir() string {
	if e.spill == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		e.spill = filepath.Join(os.TempDir(), fmt.Sprintf("sqlnb-spill-%d-%s", os.Getpid(), hex.EncodeToString(b[:])))
	}
	return e.spill
}

// sweepSpills removes the temporary directories that sqlnb processes killed outright (SIGKILL, a crash)
// left in $TMPDIR: sqlnb-spill-<pid>-<random> whose process is gone and in which nothing changed for an
// hour (a process in another PID namespace sharing /tmp, a container, looks gone to processGone, but its
// spilling writes files). A directory of a live process, or of another user's, stays.
func sweepSpills() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "sqlnb-spill-*"))
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(d), "sqlnb-spill-%d-", &pid); err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if processGone(pid) && idleFor(d, time.Hour) {
			_ = os.RemoveAll(d)
		}
	}
}

// idleFor reports whether nothing in directory dir (it and its files) changed for d.
func idleFor(dir string, d time.Duration) bool {
	cutoff := time.Now().Add(-d)
	idle := true
	_ = filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(cutoff) {
			idle = false
			return filepath.SkipAll
		}
		return nil
	})
	return idle
}

// removeSpill removes the temporary directory sqlnb named, if DuckDB left it behind (every database is
// closed by then).
func (e *env) removeSpill() {
	if e.spill != "" {
		_ = os.RemoveAll(e.spill)
	}
}

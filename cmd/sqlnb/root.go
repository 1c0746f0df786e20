package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// Exit codes.
const (
	exitOK    = 0 // success
	exitError = 1 // the command failed (bad data, unknown model, SQL error...)
	exitUsage = 2 // bad flags or arguments
)

// defaultDB is the database file used when --db is not given: an embedded DuckDB file in the current
// directory.
const defaultDB = "sqlnb.duckdb"

// usageError marks errors in how the command was called.
type usageError struct{ error }

type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	db             string
	// memoryLimit and tempDir are the global --memory-limit and --temp-dir; memoryDefault is the limit of
	// the running command when --memory-limit is not given ("": DuckDB's default). spill is the temporary
	// directory sqlnb named when --temp-dir is not given (removed when sqlnb ends).
	memoryLimit, tempDir, memoryDefault, spill string
	// quiet is the global --quiet: no progress bar, no summary line.
	quiet bool
	// storageVersion is the global --storage-version: the storage format of a database file sqlnb creates.
	storageVersion string
}

// open opens the --db database with the nb_* functions registered, creating it if it does not exist (train,
// sql, shell, models import); an existing file must be a DuckDB database (checkDB).
func (e *env) open() (*udf.DB, error) {
	if err := checkDB(e.db, false); err != nil {
		return nil, err
	}
	return e.openDB(e.db)
}

// openExisting opens the --db database, which must exist (the commands that change stored models).
func (e *env) openExisting() (*udf.DB, error) {
	if err := checkDB(e.db, true); err != nil {
		return nil, err
	}
	return e.openDB(e.db)
}

// openReadOnly opens the existing --db database read-only (the commands that only read it: predict, eval,
// models list/show/export, export, sql --read-only), so that several of them can share the file.
func (e *env) openReadOnly() (*udf.DB, error) {
	if err := checkDB(e.db, true); err != nil {
		return nil, err
	}
	return e.openDB(readOnly(e.db))
}

// readOnly adds DuckDB's access_mode=read_only to a file database's DSN.
func readOnly(dsn string) string {
	path, q, _ := strings.Cut(dsn, "?")
	if path == "" || strings.HasPrefix(path, ":memory:") || strings.Contains(q, "access_mode") {
		return dsn
	}
	if q != "" {
		return dsn + "&access_mode=read_only"
	}
	return dsn + "?access_mode=read_only"
}

// memorySize is a size as DuckDB's memory_limit takes one: a number and a unit (KB, MB, GB, TB, their KiB…
// forms, or bytes).
var memorySize = regexp.MustCompile(`(?i)^\s*([0-9]*\.?[0-9]+)\s*(b|bytes|[kmgt]i?b)\s*$`)

// checkMemorySize refuses a memory limit that is not a positive size with a unit: DuckDB reads -5GB (and
// -1) as no limit at all, and 0 as nothing.
func checkMemorySize(s string) error {
	m := memorySize.FindStringSubmatch(s)
	if m == nil {
		return errors.New("give a positive size with a unit, e.g. 2GB or 512MiB (DuckDB's default is 80% of the RAM)")
	}
	if v, err := strconv.ParseFloat(m[1], 64); err != nil || v <= 0 {
		return errors.New("give a positive size, e.g. 2GB (0 leaves DuckDB no memory at all)")
	}
	return nil
}

// storageVersions is what --storage-version takes: a DuckDB version (v1.5.0, v2.0.0) or latest.
var storageVersions = regexp.MustCompile(`^(v[0-9]+\.[0-9]+\.[0-9]+|latest)$`)

// withStorage adds storage_compatibility_version=v to a file database's DSN that names none ("" leaves it to
// udf.Open: v1.5.0). DuckDB applies it to a file it creates; an existing file keeps its format.
func withStorage(dsn, v string) string {
	path, q, _ := strings.Cut(dsn, "?")
	if v == "" || path == "" || strings.HasPrefix(path, ":memory:") || strings.Contains(q, "storage_compatibility_version") {
		return dsn
	}
	if q != "" {
		return dsn + "&storage_compatibility_version=" + v
	}
	return dsn + "?storage_compatibility_version=" + v
}

// lockHeld finds DuckDB's "Conflicting lock is held in PROGRAM (PID N)".
var lockHeld = regexp.MustCompile(`Conflicting lock is held in (.*?) \(PID (\d+)\)`)

// commit is git describe's name of the commit (make build sets it; else Go's build record is read).
var commit string

// versionText says which sqlnb this is: the commit it was built from (Go records it when building in a
// checkout), the model store's format version and the DuckDB library linked in.
func versionText() string {
	rev, when, dirty := commit, "", ""
	if rev == "" {
		rev = "unknown commit"
	}
	if info, ok := debug.ReadBuildInfo(); ok && commit == "" {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value[:min(12, len(s.Value))]
			case "vcs.time":
				when = " " + s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+changes"
				}
			}
		}
	}
	return fmt.Sprintf("%s%s%s, model store format %d, DuckDB %s, %s", rev, dirty, when, nb.FormatVersion, mapping.LibraryVersion(), runtime.Version())
}

// upgradeNoted: this run said that opening the database upgraded its model store.
var upgradeNoted bool

// openDB opens dsn with the global settings applied (configure), rewording DuckDB's file-lock error: it
// says who holds the database and what to do.
func (e *env) openDB(dsn string) (*udf.DB, error) {
	if err := checkWritable(dsn); err != nil {
		return nil, err
	}
	db, err := udf.Open(withStorage(dsn, e.storageVersion))
	if err == nil {
		if err = e.configure(db); err != nil {
			db.Close()
			return nil, err
		}
		if from := db.UpgradedFrom(); from != 0 && !upgradeNoted {
			// Opening upgraded an older model store, for good: say so once (older sqlnb cannot read it now).
			upgradeNoted = true
			path, _, _ := strings.Cut(dsn, "?")
			fmt.Fprintf(e.stderr, "upgraded the model store in %s from format version %d to %d (an older sqlnb cannot read it any more)\n",
				path, from, nb.FormatVersion)
		}
	}
	if err != nil && strings.Contains(err.Error(), "Could not set lock on file") {
		path, _, _ := strings.Cut(dsn, "?")
		who := "another process"
		if m := lockHeld.FindStringSubmatch(err.Error()); m != nil {
			who = fmt.Sprintf("%s (PID %s)", filepath.Base(m[1]), m[2])
		}
		return nil, fmt.Errorf("database %q is in use by %s: DuckDB lets one process write a database, or several read it "+
			"(sqlnb predict, eval, models list/show/export, export, sql --read-only and shell --read-only only read); wait for the other command to finish", path, who)
	}
	return db, err
}

// checkWritable says plainly that a database file opened for writing cannot be written by this user (the file,
// or its directory, where DuckDB writes NAME.wal): DuckDB's own errors were "could not connect to database:
// IO Error: Cannot open file …: Permission denied" at the start, or, for a directory, "Failed to commit"
// once a whole training had run (a review). Read-only opens are not checked.
func checkWritable(dsn string) error {
	path, q, _ := strings.Cut(dsn, "?")
	if path == "" || strings.HasPrefix(path, ":memory:") || strings.Contains(strings.ToLower(q), "access_mode=read_only") {
		return nil
	}
	what := ""
	if _, err := os.Stat(path); err == nil && !writable(path) {
		what = "the file"
	} else if dir := filepath.Dir(path); !writable(dir) {
		if _, err := os.Stat(dir); err == nil {
			what = "its directory " + dir + " (where DuckDB writes " + filepath.Base(path) + ".wal)"
		}
	}
	if what == "" {
		return nil
	}
	return fmt.Errorf("database %q cannot be written by this user: %s is not writable; commands that store models or tables "+
		"need it (run as its owner, make it writable, or give another --db); the read-only commands (predict, eval, models "+
		"list/show/export, export, sql --read-only, shell --read-only) work as it is", path, what)
}

// openConn opens the existing --db database read-only (openReadOnly) and takes one connection from it (for
// statements that share temporary tables); close releases both.
func (e *env) openConn(ctx context.Context) (*udf.DB, *sql.Conn, func(), error) {
	db, err := e.openReadOnly()
	if err != nil {
		return nil, nil, nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	return db, conn, func() { conn.Close(); db.Close() }, nil
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "sqlnb",
		Short: "Naive Bayes classifiers trained and scored inside DuckDB",
		Long: `sqlnb trains naive Bayes models with SQL aggregations inside DuckDB, stores them as tables (schema nb), and
scores rows with the SQL functions nb_predict, nb_predict_proba, ...

Feature kinds (--kind, --feature-kind):
` + sqlnb.KindsHelp() + `
Exit codes: 0 success, 1 the command failed, 2 bad flags or arguments.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if maxRows < 0 {
				return usageError{fmt.Errorf("--max-rows %d: give a number of rows (0: all)", maxRows)}
			}
			if e.memoryLimit != "" {
				if err := checkMemorySize(e.memoryLimit); err != nil {
					return usageError{fmt.Errorf("--memory-limit %q: %v", e.memoryLimit, err)}
				}
			}
			if e.storageVersion != "" && !storageVersions.MatchString(e.storageVersion) {
				return usageError{fmt.Errorf("--storage-version %q: give a DuckDB version such as v1.5.0 (readable by DuckDB 1.5 and 2.0) or v2.0.0, or latest", e.storageVersion)}
			}
			return nil
		},
	}
	root.Version = versionText()
	root.SetVersionTemplate("sqlnb {{.Version}}\n")
	root.PersistentFlags().StringVar(&e.db, "db", defaultDB, "DuckDB database file (\":memory:\" for a throw-away one)")
	root.PersistentFlags().IntVar(&maxRows, "max-rows", defaultMaxRows, "table output: show at most this many rows, then \"… N more rows\" (0: all)")
	root.PersistentFlags().StringVar(&e.memoryLimit, "memory-limit", "", "DuckDB's memory_limit, e.g. 2GB: sorts, aggregates and temporary tables spill to --temp-dir beyond it "+
		"(default: DuckDB's, 80% of RAM; eval and cv "+boundedMemory+")")
	root.PersistentFlags().StringVar(&e.tempDir, "temp-dir", "", "DuckDB's temp_directory, where data beyond --memory-limit spills (default: a new directory in $TMPDIR, removed at exit)")
	root.PersistentFlags().BoolVarP(&e.quiet, "quiet", "q", false, "no progress bar and no summary line on stderr")
	root.PersistentFlags().StringVar(&e.storageVersion, "storage-version", "", "storage format of a database file sqlnb creates: v1.5.0 (default: DuckDB 1.5 and 2.0 read it), "+
		"v2.0.0 or latest (DuckDB 2.0 only); an existing file keeps its format")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newTrainCmd(e), newMergeCmd(e), newPredictCmd(e), newEvalCmd(e), newCVCmd(e), newCompareCmd(e), newModelsCmd(e), newExportCmd(e), newShellCmd(e), newSQLCmd(e))
	for _, c := range root.Commands() {
		c.SilenceUsage, c.SilenceErrors = true, true
	}
	registerCompletions(root, e)
	return root
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	leftOutNotice, upgradeNoted = stderr, false
	e.spillDir() // named once: commands that copy env share it
	sweepSpills()
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Ctrl-C, TERM (timeout, systemd, docker stop) and HUP (the terminal closed) cancel the command's context;
	// the signal is kept for the message and the exit status (128 + its number, as shells report).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	var got atomic.Value
	returned := make(chan struct{})
	defer close(returned)
	// The interactive shell handles Ctrl-C itself (it stops the query, not the shell); any other command that
	// has not stopped forceAfter after the signal, or that gets a second one, exits at once: cancelling cannot
	// end a read that blocks in the kernel (a FIFO or a terminal as --from), which left `timeout` and Ctrl-C
	// without effect.
	cmd, _, _ := root.Find(args)
	force := cmd == nil || cmd.Name() != "shell"
	go func() {
		select {
		case sig := <-sigs:
			got.Store(sig)
			cancel()
			if !force {
				return
			}
			select {
			case <-sigs:
			case <-time.After(forceAfter):
			case <-returned:
				return
			}
			s, _ := sig.(syscall.Signal)
			fmt.Fprintf(stderr, "sqlnb: stopped by %s: the command did not end within %v of it (a read that blocks, such as a FIFO or a terminal as the source), so sqlnb exits; what it was writing was not stored\n",
				signalName(s), forceAfter)
			e.removeSpill()
			os.Exit(128 + int(s))
		case <-ctx.Done(): // run returned (run is called many times in tests)
		}
	}()
	defer e.removeSpill()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if sig, ok := got.Load().(syscall.Signal); ok {
		// The library's wording ("read model store: context canceled") says nothing a user can use: what
		// stopped it, and that what it was writing was not stored (each write is one transaction, and files
		// appear whole or not at all).
		fmt.Fprintf(stderr, "sqlnb: stopped by %s: what it was writing then was not stored (each store is one transaction, and files appear whole or not at all)\n", signalName(sig))
		return 128 + int(sig)
	}
	fmt.Fprintln(stderr, "sqlnb:", strings.TrimPrefix(err.Error(), "sqlnb: ")) // an error of the library may carry the name already
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage
	}
	return exitError
}

// forceAfter is how long after a signal run waits for the command to end before it exits.
const forceAfter = 5 * time.Second

// signalName names the signals run handles.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "Ctrl-C (SIGINT)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP (the terminal closed)"
	}
	return sig.String()
}

// isCobraUsage recognises cobra's own argument errors (unknown command, wrong number of args).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{`unknown command "`, "unknown flag: ", "unknown shorthand flag: ", "accepts ", "requires at least ", "required flag(s) "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

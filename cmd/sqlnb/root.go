package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
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
}

// open opens the --db database with the nb_* functions registered.
func (e *env) open() (*udf.DB, error) {
	return udf.Open(e.db)
}

// openConn opens the --db database and takes one connection from it (for statements that share
// temporary tables); close releases both.
func (e *env) openConn(ctx context.Context) (*udf.DB, *sql.Conn, func(), error) {
	db, err := e.open()
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
	}
	root.PersistentFlags().StringVar(&e.db, "db", defaultDB, "DuckDB database file (\":memory:\" for a throw-away one)")
	root.PersistentFlags().IntVar(&maxRows, "max-rows", defaultMaxRows, "table output: show at most this many rows, then \"… N more rows\" (0: all)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newTrainCmd(e), newPredictCmd(e), newEvalCmd(e), newCVCmd(e), newCompareCmd(e), newModelsCmd(e), newExportCmd(e), newShellCmd(e), newSQLCmd(e))
	for _, c := range root.Commands() {
		c.SilenceUsage, c.SilenceErrors = true, true
	}
	registerCompletions(root, e)
	return root
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "sqlnb:", err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage
	}
	return exitError
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

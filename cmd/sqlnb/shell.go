package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/shell"
	"github.com/sqlnb/sqlnb/udf"
)

func newShellCmd(e *env) *cobra.Command {
	var readOnlyDB bool
	cmd := &cobra.Command{
		Use:   "shell [DB]",
		Short: "Interactive SQL shell with every nb_* function (runs a script when stdin is not a terminal)",
		Long: `An interactive DuckDB SQL shell on DB (default --db) with nb_train, nb_predict and every other nb_* function:
line editing, Tab completion (keywords, functions, tables, columns, models, files, dot commands), persistent
history (~/.sqlnb_history, or $SQLNB_HISTORY; a multi-line statement stays one entry), multi-line statements
ending at ';' (cut by DuckDB's own parser), aligned results with column types and row counts (at most
--max-rows, .maxrows), dot commands (.help: .open, .import, ...). Ctrl-C cancels the running query.
With stdin not a terminal (sqlnb shell db < script.sql) it runs the script, prints the results and exits
with status 1 at the first error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if f := cmd.Flags().Lookup("db"); f != nil && f.Changed && e.db != args[0] {
					return usageError{fmt.Errorf("--db %s and the database argument %s: give one of them", e.db, args[0])}
				}
				if _, err := os.Stat(args[0]); err != nil && looksLikeSQL(args[0]) {
					return usageError{fmt.Errorf("no database file %q: the argument is the database to open; pipe SQL in "+
						"(echo 'SELECT 1;' | sqlnb shell) or use sqlnb sql -c %q", args[0], args[0])}
				}
				e.db = args[0]
			}
			if readOnlyDB {
				if err := checkDB(e.db, true); err != nil {
					return err
				}
				e.db = readOnly(e.db)
			}
			return shell.Run(shell.Config{
				Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, DB: e.db, MaxRows: maxRows, Notice: leftOutNotice,
				Open: func(dsn string) (*udf.DB, error) {
					if err := checkDB(dsn, false); err != nil {
						return nil, err
					}
					return e.openDB(dsn)
				},
			})
		},
	}
	cmd.Flags().BoolVar(&readOnlyDB, "read-only", false, "open the database read-only (it must exist): several shells and read-only commands can share it")
	return cmd
}

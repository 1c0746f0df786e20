package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/internal/output"
	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/udf"
)

type sqlOptions struct {
	command  string
	format   string
	readOnly bool
}

func newSQLCmd(e *env) *cobra.Command {
	o := &sqlOptions{}
	cmd := &cobra.Command{
		Use:   "sql [-c STATEMENTS | FILE | -]",
		Short: "Run SQL with the nb_* functions available",
		Long: `Run SQL statements from -c, a file, or standard input on the database, with nb_predict, nb_train and the
other nb_* functions registered. Statements run in order and each one's result is printed, as the DuckDB CLI
prints them (a statement that only changes something — CREATE, INSERT, COPY, SET — prints nothing). A
statement that fails stops the run; the error says which one and how many ran before it. Text that DuckDB
cannot parse runs nothing.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runSQL(cmd, e, o, args) },
	}
	cmd.Flags().StringVarP(&o.command, "command", "c", "", "SQL to run")
	cmd.Flags().StringVar(&o.format, "format", "table", formatHelp)
	cmd.Flags().BoolVar(&o.readOnly, "read-only", false, "open the database read-only (it must exist): several read-only commands can share it")
	return cmd
}

func runSQL(cmd *cobra.Command, e *env, o *sqlOptions, args []string) error {
	text := o.command
	given := cmd.Flags().Changed("command")
	switch {
	case given && len(args) > 0:
		return usageError{fmt.Errorf("give either -c or a file, not both")}
	case given: // -c "" is no SQL, not a request to read standard input
	case len(args) == 1 && args[0] != "-": // "-": standard input, as no argument
		if outfile.IsDuckDB(args[0]) {
			return usageError{fmt.Errorf("%s is a DuckDB database, not a SQL file: open it with --db %s", args[0], args[0])}
		}
		b, err := os.ReadFile(args[0])
		if errors.Is(err, fs.ErrNotExist) && looksLikeSQL(args[0]) {
			return usageError{fmt.Errorf("no file %q: to run SQL given on the command line, use -c: sqlnb sql -c %q", args[0], args[0])}
		}
		if err != nil {
			return err
		}
		text = string(b)
	default:
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return usageError{fmt.Errorf("no SQL given: use -c, a file or standard input")}
	}
	if err := checkFormat(o.format); err != nil {
		return err
	}
	open := e.open
	if o.readOnly {
		open = e.openReadOnly
	}
	db, err := open()
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := cmd.Context()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	parse, err := udf.Parser(conn)
	if err != nil {
		return err
	}
	// The text ends a statement as it is: a ';' is added on a line of its own (after a -- comment).
	stmts, complete, err := sqltext.Splitter{Count: parse, Rules: udf.Lexer()}.Split(text + "\n;")
	if err != nil {
		return err
	}
	if !complete { // it ends inside a string, quoted name or comment: DuckDB's parser says which
		if _, err := parse(text); err != nil {
			return err
		}
		return errors.New("the SQL text ends inside a string, a quoted name or a comment: nothing ran")
	}
	for i, st := range stmts {
		if err := runStatement(ctx, conn, e.stdout, o.format, st); err != nil {
			if len(stmts) == 1 {
				return err
			}
			return fmt.Errorf("statement %d of %d (%s): %w", i+1, len(stmts), ranBefore(i), err)
		}
	}
	return nil
}

// looksLikeSQL reports whether a command-line argument meant as a file name is SQL instead: it holds a ';'
// or starts with a statement's first word and a blank ("SELECT 1", not "my models.duckdb").
func looksLikeSQL(arg string) bool {
	t := strings.TrimSpace(arg)
	if strings.Contains(t, ";") {
		return true
	}
	word, rest, ok := strings.Cut(t, " ")
	if !ok || rest == "" {
		return false
	}
	switch strings.ToLower(word) {
	case "select", "with", "from", "values", "create", "insert", "update", "delete", "call", "pragma", "copy", "attach",
		"drop", "alter", "show", "describe", "explain", "summarize", "table", "pivot", "unpivot", "set", "load", "install":
		return true
	}
	return false
}

// ranBefore says how many statements ran before the one that failed.
func ranBefore(i int) string {
	switch i {
	case 0:
		return "none ran before it"
	case 1:
		return "the one before it ran"
	}
	return fmt.Sprintf("the %d before it ran", i)
}

// runStatement runs one statement on conn and writes its result in format, unless the statement only
// changes something (quietResult).
func runStatement(ctx context.Context, conn *sql.Conn, w io.Writer, format, stmt string) error {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return output.NoParameterValues(output.DriverLimits(err), "sqlnb sql")
	}
	cols, err := rows.Columns()
	if err != nil || len(cols) == 0 || output.Quiet(stmt, cols) {
		rows.Close()
		return err
	}
	return writeRows(w, format, maxRows, rows)
}

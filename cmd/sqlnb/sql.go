package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/outfile"
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
	stmts, complete, err := sqlParser{count: parse}.split(text + "\n;")
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
		return noParameterValues(driverLimits(err), "sqlnb sql")
	}
	cols, err := rows.Columns()
	if err != nil || len(cols) == 0 || quietResult(stmt, cols) {
		rows.Close()
		return err
	}
	return writeRows(w, format, maxRows, rows)
}

// argumentCount is the error of duckdb-go (statement.go, Stmt.bind) for a statement given fewer values than
// it has parameters; sql and the shell give none.
var argumentCount = regexp.MustCompile(`^incorrect argument count for command: have 0 want (\d+)$`)

// noParameterValues explains argumentCount's error to a user of sql or the shell (tool): the statement has
// parameters and the tool has no way to give them values.
func noParameterValues(err error, tool string) error {
	if err == nil {
		return nil
	}
	m := argumentCount.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	n := m[1] + " parameters"
	if m[1] == "1" {
		n = "1 parameter"
	}
	return fmt.Errorf("the statement has %s (?, $1 or $name) and %s cannot give it values: write the values in, or use "+
		"PREPARE and EXECUTE (PREPARE p AS SELECT nb_predict('model', {'x': ?}); EXECUTE p(1.5))", n, tool)
}

// quietKeywords are the first words of statements whose result DuckDB's CLI does not print: they change
// something and report a row count (Count) or nothing (Success).
var quietKeywords = map[string]bool{
	"create": true, "insert": true, "update": true, "delete": true, "copy": true, "set": true, "reset": true,
	"drop": true, "alter": true, "attach": true, "detach": true, "use": true, "begin": true, "start": true,
	"commit": true, "end": true, "rollback": true, "abort": true, "checkpoint": true, "force": true,
	"vacuum": true, "load": true, "install": true, "export": true, "import": true, "truncate": true,
	"comment": true, "prepare": true, "deallocate": true, "analyze": true, "pragma": true, "execute": true,
	"merge": true, "with": true,
}

// quietResult reports whether the result of stmt, with columns cols, is a statement's report that DuckDB's
// CLI leaves out: a single Count or Success column of a statement that changes something (INSERT …
// RETURNING, whose rows are data, is printed).
func quietResult(stmt string, cols []string) bool {
	if len(cols) != 1 || cols[0] != "Count" && cols[0] != "Success" {
		return false
	}
	return quietKeywords[firstKeyword(stmt)]
}

// firstKeyword is the first word of stmt in lower case, after comments.
func firstKeyword(stmt string) string {
	s := strings.TrimSpace(stmt)
	for {
		switch {
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = strings.TrimSpace(s[i+1:])
				continue
			}
			return ""
		case strings.HasPrefix(s, "/*"):
			if i := strings.Index(s, "*/"); i >= 0 {
				s = strings.TrimSpace(s[i+2:])
				continue
			}
			return ""
		}
		break
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		end = len(s)
	}
	return strings.ToLower(s[:end])
}

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
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
other nb_* functions registered. Statements run in order; the result of the last one is printed.`,
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
	switch {
	case text != "" && len(args) > 0:
		return usageError{fmt.Errorf("give either -c or a file, not both")}
	case len(args) == 1 && args[0] != "-": // "-": standard input, as no argument
		b, err := os.ReadFile(args[0])
		if err != nil {
			return err
		}
		text = string(b)
	case text == "":
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return usageError{fmt.Errorf("no SQL given: use -c, a file or standard input")}
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
	return query(cmd.Context(), db.DB, e.stdout, o.format, text)
}

package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
)

type exportOptions struct {
	model, sql, dialect string
	persist             bool
}

func newExportCmd(e *env) *cobra.Command {
	o := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export --model NAME [--sql FILE] [--dialect duckdb|postgres] [--persist]",
		Short: "Write a model as plain SQL that scores without sqlnb (DuckDB macros or PostgreSQL functions)",
		Long: `Write a script that scores with model NAME using only built-in SQL: tables with the model's parameters and
<model>_predict(features), <model>_predict_proba(features) and <model>_joint_log_likelihood(features), with
the same rules and numbers as nb_predict. DuckDB (default): macros over a STRUCT, used as
SELECT m_predict(t) FROM tbl t in any DuckDB client. PostgreSQL: SQL functions over jsonb, used as
SELECT m_predict(to_jsonb(t)) FROM tbl t. --persist creates the DuckDB tables and macros inside the database
file itself, so any client that opens the file can score.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runExport(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model name (required)")
	f.StringVar(&o.sql, "sql", "", "script file to write (- for stdout)")
	f.StringVar(&o.dialect, "dialect", sqlnb.DialectDuckDB, "duckdb or postgres")
	f.BoolVar(&o.persist, "persist", false, "create the DuckDB tables and macros in the database file")
	_ = cmd.MarkFlagRequired("model")
	return cmd
}

func runExport(cmd *cobra.Command, e *env, o *exportOptions) error {
	if o.sql == "" && !o.persist {
		return usageError{fmt.Errorf("give --sql FILE, --persist, or both")}
	}
	if o.persist && o.dialect != sqlnb.DialectDuckDB {
		return usageError{fmt.Errorf("--persist writes DuckDB macros: it cannot be combined with --dialect %s", o.dialect)}
	}
	db, err := e.openExisting()
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := sqlnb.Load(cmd.Context(), db, o.model)
	if err != nil {
		return err
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		return err
	}
	var script bytes.Buffer
	if err := sqlnb.ExportSQL(&script, s, o.dialect); err != nil {
		return usageError{err}
	}
	switch o.sql {
	case "":
	case "-":
		if _, err := e.stdout.Write(script.Bytes()); err != nil {
			return err
		}
	default:
		if err := os.WriteFile(o.sql, script.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s scoring SQL for %q to %s\n", o.dialect, m.Name, o.sql)
	}
	if o.persist {
		if _, err := db.ExecContext(cmd.Context(), script.String()); err != nil {
			return fmt.Errorf("persist %q: %w", m.Name, err)
		}
		fmt.Fprintf(e.stderr, "created %s_predict, %s_predict_proba and %s_joint_log_likelihood in the database\n", m.Name, m.Name, m.Name)
	}
	return nil
}

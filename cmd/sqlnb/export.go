package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
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
	open := e.openReadOnly
	if o.persist {
		open = e.openExisting
	}
	db, err := open()
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := cmd.Context()
	// Compiling and writing a model is Go, not a DuckDB statement: a spinner with the elapsed time.
	bar := e.track(ctx, nil, "exporting", "")
	defer bar.clear()
	m, err := sqlnb.Load(ctx, db, o.model)
	if err != nil {
		return err
	}
	s, err := sqlnb.Compile(m)
	if err != nil {
		return err
	}
	// --sql writes the plain script, which runs in any database; the persisted macros also check the
	// model's version against nb.models, which only this database has.
	var script, persisted bytes.Buffer
	if err := sqlnb.ExportSQLWith(&script, s, sqlnb.ExportOptions{Dialect: o.dialect}); err != nil {
		return usageError{err}
	}
	if o.persist {
		opts := sqlnb.ExportOptions{Dialect: o.dialect}
		if err := db.QueryRowContext(ctx, "SELECT "+sqlnb.VersionSQL(m.Name)).Scan(&opts.Version); err != nil {
			return fmt.Errorf("persist %q: %w", m.Name, err)
		}
		if err := sqlnb.ExportSQLWith(&persisted, s, opts); err != nil {
			return usageError{err}
		}
	}
	// The file is written but kept out of place until --persist succeeded: a failed command leaves the file
	// that was there as it was.
	var file *outfile.File
	switch o.sql {
	case "":
	case "-":
		if _, err := e.stdout.Write(script.Bytes()); err != nil {
			return err
		}
	default:
		if file, err = outfile.Create(o.sql); err != nil {
			return err
		}
		if _, err := file.Writer().Write(script.Bytes()); err != nil {
			file.Abort()
			return fmt.Errorf("write %s: %w", o.sql, err)
		}
	}
	if o.persist {
		if err := persist(ctx, db, m.Name, persisted.String()); err != nil {
			if file != nil {
				file.Abort()
			}
			return fmt.Errorf("persist %q: %w", m.Name, err)
		}
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return err
		}
		bar.summary("wrote %s scoring SQL for %q to %s", o.dialect, m.Name, o.sql)
	}
	if o.persist {
		bar.summary("created %s_predict, %s_predict_proba and %s_joint_log_likelihood in the database", m.Name, m.Name, m.Name)
	}
	return nil
}

// persist runs the export script in the database in one transaction, after dropping the objects an earlier
// export of the model made. An object of the same name that sqlnb did not make (no ExportMarker comment) is
// never replaced: the export is refused, naming it.
func persist(ctx context.Context, db *udf.DB, model, script string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, queries.SQL("store_begin.sql")); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), queries.SQL("store_rollback.sql"))
	marker := sqlnb.ExportMarker(model)
	for _, o := range sqlnb.ExportedObjects(model) {
		var kind, name, comment sql.NullString
		err := conn.QueryRowContext(ctx, queries.SQL("export_object.sql"), o[1]).Scan(&kind, &name, &comment)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		if other, ok := strings.CutPrefix(comment.String, sqlnb.ExportMarker("")); ok && comment.String != marker {
			return fmt.Errorf("the database has the %s main.%s of model %q's export, and DuckDB's names ignore case: model %q's would be the same "+
				"objects; export one of the two under another name (sqlnb models export, then models import --name)", kind.String, queries.Ident(name.String), other, model)
		}
		if comment.String != marker {
			return fmt.Errorf("the database already has a %s main.%s that sqlnb did not create: sqlnb never replaces it; drop or rename it, "+
				"or export the model under another name (sqlnb models export, then models import --name)", kind.String, queries.Ident(name.String))
		}
		drop, err := queries.Render("export_drop.tmpl.sql", queries.ExportDrop{Kind: kind.String, Name: name.String})
		if err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, drop); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, script); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, queries.SQL("store_commit.sql"))
	return err
}

package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
)

type predictOptions struct {
	model, from, output, format string
	proba                       bool
	columns                     []string
}

func newPredictCmd(e *env) *cobra.Command {
	o := &predictOptions{}
	cmd := &cobra.Command{
		Use:   "predict --model NAME --from SOURCE [--output FILE]",
		Short: "Score a table, query or file with a stored model",
		Long: `Score every row of SOURCE with model NAME inside DuckDB and write the source columns plus "prediction"
(and, with --proba, one "proba_<class>" column per class) to FILE (.parquet, .csv or .json, streamed by DuckDB's
COPY) or to stdout (--format table|csv|json).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPredict(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model name (required)")
	f.StringVar(&o.from, "from", "", "source to score: table, query or file glob (required)")
	f.StringVar(&o.output, "output", "", "output file: .parquet, .csv or .json (default: stdout)")
	f.StringVar(&o.format, "format", "table", formatHelp+" (without --output)")
	f.BoolVar(&o.proba, "proba", false, "add a proba_<class> column per class")
	f.StringSliceVar(&o.columns, "columns", nil, "source columns to keep (default: all)")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

var copyFormats = map[string]string{".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json"}

func runPredict(cmd *cobra.Command, e *env, o *predictOptions) error {
	var copyFormat string
	if o.output != "" {
		var ok bool
		if copyFormat, ok = copyFormats[strings.ToLower(filepath.Ext(o.output))]; !ok {
			return usageError{fmt.Errorf("--output %q: use a .parquet, .csv or .json file", o.output)}
		}
	}
	if err := sqlnb.ValidateName(o.model); err != nil {
		return usageError{err}
	}
	ctx := cmd.Context()
	db, err := e.openExisting()
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := sqlnb.Load(ctx, db, o.model)
	if err != nil {
		return err
	}
	src, err := sqlnb.ResolveSource(ctx, db, o.from)
	if err != nil {
		return err
	}
	keep := "t.*"
	if len(o.columns) > 0 {
		q := make([]string, len(o.columns))
		for i, c := range o.columns {
			q[i] = "t." + queries.Ident(c)
		}
		keep = strings.Join(q, ", ")
	}
	model := queries.Literal(o.model)
	sel := fmt.Sprintf("SELECT %s, nb_predict(%s, t) AS prediction", keep, model)
	if o.proba {
		for _, c := range m.Classes {
			sel += fmt.Sprintf(", nb_proba(%s, t, %s) AS %s", model, queries.Literal(c.Label), queries.Ident("proba_"+c.Label))
		}
	}
	sel += " FROM " + src.From + " t"
	if o.output == "" {
		return query(ctx, db.DB, e.stdout, o.format, sel, src.Args...)
	}
	if dir := filepath.Dir(o.output); dir != "." {
		if err := mkdirAll(dir); err != nil {
			return err
		}
	}
	stmt := "COPY (" + sel + ") TO $" + fmt.Sprint(len(src.Args)+1) + " (FORMAT " + copyFormat + ")"
	res, err := db.ExecContext(ctx, stmt, append(src.Args, o.output)...)
	if err != nil {
		return fmt.Errorf("predict %q: %w", o.model, err)
	}
	n, _ := res.RowsAffected()
	fmt.Fprintf(e.stderr, "scored %d rows with %q into %s\n", n, o.model, o.output)
	return nil
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/plots"
)

type evalOptions struct {
	model, from, label, format, plot, posLabel string
}

func newEvalCmd(e *env) *cobra.Command {
	o := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval --model NAME --from SOURCE [--label COLUMN] [--plot DIR]",
		Short: "Score a labelled source and report classification metrics",
		Long: `Score SOURCE with model NAME inside DuckDB and compute, also inside DuckDB: accuracy, per-class precision,
recall, F1 and support, their macro and weighted averages, log-loss, Brier score, ROC-AUC and average
precision (binary: of the second class; more classes: one-vs-rest per class, macro and weighted), and the
confusion matrix. Definitions are scikit-learn's. --plot DIR also writes ROC, precision-recall, calibration
and confusion pictures (PNG and SVG).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEval(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model name (required)")
	f.StringVar(&o.from, "from", "", "labelled source: table, query or file glob (required)")
	f.StringVar(&o.label, "label", "", "true-class column (default: the model's label column)")
	f.StringVar(&o.format, "format", "table", "output format: table, csv or json")
	f.StringVar(&o.plot, "plot", "", "directory for PNG and SVG pictures")
	f.StringVar(&o.posLabel, "pos-label", "", "positive class of a two-class model for Brier, ROC-AUC, average precision and the plots (default: the second class)")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

func runEval(cmd *cobra.Command, e *env, o *evalOptions) error {
	if o.format != "table" && o.format != "csv" && o.format != "json" {
		return usageError{fmt.Errorf("--format %q: use table, csv or json", o.format)}
	}
	ctx := cmd.Context()
	_, conn, closeAll, err := e.openConn(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	ev, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: o.model, Source: o.from, Label: o.label, Curves: o.plot != "", PosLabel: o.posLabel})
	if errors.Is(err, sqlnb.ErrPosLabel) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if err := writeEvaluation(e, o.format, ev); err != nil {
		return err
	}
	if o.plot != "" {
		files, err := plots.Evaluation(ev, o.plot)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %d pictures to %s\n", len(files), o.plot)
	}
	return nil
}

func metricRows(ms []sqlnb.Metric) [][]any {
	rows := make([][]any, len(ms))
	for i, m := range ms {
		var v any = m.Value
		if math.IsNaN(m.Value) {
			v = nil
		}
		rows[i] = []any{m.Metric, nullIfEmpty(m.Class), v}
	}
	return rows
}

func writeEvaluation(e *env, format string, ev *sqlnb.Evaluation) error {
	conf := make([][]any, len(ev.Confusion))
	for i, c := range ev.Confusion {
		conf[i] = []any{c.Actual, c.Predicted, c.N}
	}
	if format == "json" {
		out := map[string]any{"metrics": []map[string]any{}, "confusion": []map[string]any{}}
		for _, r := range metricRows(ev.Metrics) {
			out["metrics"] = append(out["metrics"].([]map[string]any), map[string]any{"metric": r[0], "class": r[1], "value": jsonValue(r[2])})
		}
		for _, c := range ev.Confusion {
			out["confusion"] = append(out["confusion"].([]map[string]any), map[string]any{"actual": c.Actual, "predicted": c.Predicted, "n": c.N})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if err := writeResult(e.stdout, format, []string{"metric", "class", "value"}, []string{"VARCHAR", "VARCHAR", "DOUBLE"}, metricRows(ev.Metrics)); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	return writeResult(e.stdout, format, []string{"actual", "predicted", "n"}, []string{"VARCHAR", "VARCHAR", "BIGINT"}, conf)
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/plots"
)

type evalOptions struct {
	model, from, label, format, plot, posLabel string
	what                                       []string
	noCurves                                   bool
}

// evalParts are the parts of eval's output (--what).
var evalParts = []string{"metrics", "per-class", "confusion"}

func newEvalCmd(e *env) *cobra.Command {
	o := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval --model NAME --from SOURCE [--label COLUMN] [--what PARTS] [--plot DIR]",
		Short: "Score a labelled source and report classification metrics",
		Long: `Score SOURCE with model NAME inside DuckDB and compute, also inside DuckDB: accuracy, per-class precision,
recall, F1 and support, their macro and weighted averages, log-loss, Brier score, ROC-AUC and average
precision (binary: of the positive class, --pos-label, default the second; more classes: one-vs-rest per
class, macro and weighted), and the confusion matrix. Definitions are scikit-learn's.

The output has three parts (--what): metrics (one row per overall metric), per-class (one row per class)
and confusion (actual, predicted, n). table, line and markdown print the parts asked for (default: all)
one after the other; csv prints one table (default: metrics); json is one object with a key per part.
--plot DIR also writes ROC, precision-recall, calibration and confusion pictures (PNG and SVG).

The scores go into a compact temporary table; one sort per class, read as it streams, gives ROC-AUC and
average precision; sorts and the table spill to --temp-dir beyond --memory-limit (default for eval:
` + boundedMemory + `).
--no-curves leaves out everything that sorts (ROC-AUC, average precision, --plot): the source is scored
and every other metric aggregated in one pass.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEval(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model name (required)")
	f.StringVar(&o.from, "from", "", "labelled source: table, query or file glob (required)")
	f.StringVar(&o.label, "label", "", "true-class column (default: the model's label column)")
	f.StringVar(&o.format, "format", "table", formatHelp)
	f.StringSliceVar(&o.what, "what", nil, "parts to print, comma-separated: "+strings.Join(evalParts, ", ")+" (default: all; csv: metrics)")
	f.StringVar(&o.plot, "plot", "", "directory for PNG and SVG pictures")
	f.StringVar(&o.posLabel, "pos-label", "", "positive class of a two-class model for Brier, ROC-AUC, average precision and the plots (default: the second class)")
	f.BoolVar(&o.noCurves, "no-curves", false, "leave out what sorts the scores (ROC-AUC, average precision): one pass over the source")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

func runEval(cmd *cobra.Command, e *env, o *evalOptions) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.noCurves && o.plot != "" {
		return usageError{fmt.Errorf("--plot draws the ROC, precision-recall and calibration curves, which --no-curves leaves out: give one of them")}
	}
	what := o.what
	for _, w := range what {
		if !slices.Contains(evalParts, w) {
			return usageError{fmt.Errorf("--what %q: use %s", w, strings.Join(evalParts, ", "))}
		}
	}
	switch {
	case len(what) == 0 && o.format == "csv":
		what = []string{"metrics"}
	case len(what) == 0:
		what = evalParts
	case len(what) > 1 && o.format == "csv":
		return usageError{fmt.Errorf("--what %s: csv holds one table: give one of %s (or --format json for all)",
			strings.Join(what, ","), strings.Join(evalParts, ", "))}
	}
	ctx := cmd.Context()
	e.memoryDefault = boundedMemory
	_, conn, closeAll, err := e.openConn(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	start := time.Now()
	bar := e.track(ctx, conn, "evaluating", o.from)
	ev, err := sqlnb.Evaluate(ctx, conn, sqlnb.EvalSpec{Model: o.model, Source: o.from, Label: o.label, Curves: o.plot != "", PosLabel: o.posLabel, PosLabelGiven: cmd.Flags().Changed("pos-label"),
		NoCurves: o.noCurves})
	bar.clear()
	if errors.Is(err, sqlnb.ErrPosLabel) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if err := writeEvaluation(e, o.format, what, ev); err != nil {
		return err
	}
	printWarnings(e, ev.Model.Name, ev.Warnings)
	pictures := ""
	if o.plot != "" {
		files, err := plots.Evaluation(ev, o.plot)
		if err != nil {
			return err
		}
		pictures = fmt.Sprintf("; wrote %d pictures to %s", len(files), o.plot)
	}
	n, _ := ev.Get("n", "")
	skipped := ""
	if ev.Unlabelled > 0 {
		skipped = fmt.Sprintf(" (%d skipped: NULL label)", ev.Unlabelled)
	}
	bar.summary("evaluated %q on %d rows%s in %.3fs%s", ev.Model.Name, int64(n), skipped, time.Since(start).Seconds(), pictures)
	return nil
}

// evalTable is one part of eval's output as a table.
type evalTable struct {
	names, types []string
	rows         [][]any
}

// evalTables lays out the parts of an evaluation: the overall metrics, the per-class metrics (classes in
// model order, then any other true label; columns in perClassOrder, then any other per-class metric) and
// the confusion cells.
func evalTables(ev *sqlnb.Evaluation) map[string]evalTable {
	metrics := evalTable{names: []string{"metric", "value"}, types: []string{"VARCHAR", "DOUBLE"}}
	perClass := map[string]map[string]float64{}
	var classes, columns []string
	for _, m := range ev.Metrics {
		if !m.PerClass {
			metrics.rows = append(metrics.rows, []any{m.Metric, nanNil(m.Value)})
			continue
		}
		if perClass[m.Class] == nil {
			perClass[m.Class] = map[string]float64{}
			classes = append(classes, m.Class)
		}
		perClass[m.Class][m.Metric] = m.Value
		if !slices.Contains(columns, m.Metric) {
			columns = append(columns, m.Metric)
		}
	}
	order := map[string]int{}
	if ev.Model != nil {
		for i, c := range ev.Model.Classes {
			order[c.Label] = i + 1
		}
	}
	slices.SortStableFunc(classes, func(a, b string) int {
		oa, ob := order[a], order[b]
		switch {
		case oa != 0 && ob != 0:
			return oa - ob
		case oa != 0:
			return -1
		case ob != 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	rank := func(c string) int {
		if i := slices.Index(perClassOrder, c); i >= 0 {
			return i
		}
		return len(perClassOrder)
	}
	slices.SortStableFunc(columns, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	pc := evalTable{names: append([]string{"class"}, columns...), types: []string{"VARCHAR"}}
	for range columns {
		pc.types = append(pc.types, "DOUBLE")
	}
	for _, c := range classes {
		row := []any{c}
		for _, k := range columns {
			v, ok := perClass[c][k]
			if !ok {
				v = math.NaN()
			}
			row = append(row, nanNil(v))
		}
		pc.rows = append(pc.rows, row)
	}
	conf := evalTable{names: []string{"actual", "predicted", "n"}, types: []string{"VARCHAR", "VARCHAR", "BIGINT"}}
	for _, c := range ev.Confusion {
		conf.rows = append(conf.rows, []any{c.Actual, c.Predicted, c.N})
	}
	return map[string]evalTable{"metrics": metrics, "per-class": pc, "confusion": conf}
}

// perClassOrder is the column order of the per-class table.
var perClassOrder = []string{"precision", "recall", "f1", "support", "roc_auc", "average_precision"}

// writeEvaluation writes the parts what of ev: each as a table (separated by a blank line), or as one JSON
// object with a key per part (metrics as name → value; per_class and confusion as lists of objects).
func writeEvaluation(e *env, format string, what []string, ev *sqlnb.Evaluation) error {
	tables := evalTables(ev)
	if format == "json" {
		out := map[string]any{}
		if ev.Model != nil {
			out["model"] = ev.Model.Name
		}
		if ev.Positive != "" {
			out["positive"] = ev.Positive
		}
		for _, w := range what {
			t := tables[w]
			if w == "metrics" {
				obj := map[string]any{}
				for _, r := range t.rows {
					obj[r[0].(string)] = jsonValue(r[1])
				}
				out[w] = obj
				continue
			}
			list := []map[string]any{}
			for _, r := range t.rows {
				obj := map[string]any{}
				for i, n := range t.names {
					obj[n] = jsonValue(r[i])
				}
				list = append(list, obj)
			}
			out[strings.ReplaceAll(w, "-", "_")] = list
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i, w := range what {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		t := tables[w]
		if err := writeResult(e.stdout, format, t.names, t.types, t.rows); err != nil {
			return err
		}
	}
	return nil
}

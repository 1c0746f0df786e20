package main

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/plots"
)

type cvOptions struct {
	model, label, from string
	flags              modelFlags
	folds              int
	stratified         bool
	seed               int64
	key, metric, plot  string
	posLabel           string
	format             string
	alphas, vss        []float64
	auc                bool
}

func newCVCmd(e *env) *cobra.Command {
	o := &cvOptions{}
	cmd := &cobra.Command{
		Use:   "cv --from SOURCE --label COLUMN [train flags] --folds K [--alpha 0,0.5,1] [--var-smoothing ...]",
		Short: "k-fold cross-validation from one statistics scan, with smoothing sweeps",
		Long: `Cross-validate a naive Bayes model on SOURCE. Folds are assigned in SQL (hash of --key, or of the whole
row, with --seed; --stratified deals each class round-robin). The statistics of every fold come from one
GROUP BY (fold, class) scan; the model of fold f is the exact merge of the other folds; each row is scored
once by its fold's model and the per-fold metrics are aggregated inside DuckDB. Every --alpha ×
--var-smoothing setting is evaluated from the same fold statistics (smoothing applies when a model is bound).
Reports per-fold metrics, mean ± sd per setting, and the best setting by --metric.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCV(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "cv", "name of the run (nothing is stored)")
	f.StringVar(&o.label, "label", "", "label (class) column (required)")
	f.StringVar(&o.from, "from", "", "training source: table, query or file glob (required)")
	o.flags.addFeatures(cmd)
	o.flags.addTraining(cmd)
	o.flags.addRule(cmd)
	o.flags.addPriors(cmd)
	f.Float64SliceVar(&o.alphas, "alpha", nil, "α values to sweep (default 1)")
	f.Float64SliceVar(&o.vss, "var-smoothing", nil, "var_smoothing values to sweep (default 1e-9)")
	f.IntVar(&o.folds, "folds", 5, "number of folds k ≥ 2")
	f.BoolVar(&o.stratified, "stratified", false, "deal each class round-robin over the folds")
	f.Int64Var(&o.seed, "seed", 0, "seed of the fold assignment")
	f.StringVar(&o.key, "key", "", "column whose hash assigns folds (default: the whole row)")
	f.StringVar(&o.metric, "metric", "accuracy", "metric that picks the best setting: accuracy, f1_macro, log_loss, brier, roc_auc")
	f.StringVar(&o.posLabel, "pos-label", "", "positive class of a two-class label for Brier, ROC-AUC and average precision (default: the second class)")
	f.BoolVar(&o.auc, "auc", false, "also compute ROC-AUC and average precision per fold (sorts every score)")
	f.StringVar(&o.format, "format", "table", "output format: table, csv or json")
	f.StringVar(&o.plot, "plot", "", "directory for the metric-versus-smoothing picture (PNG and SVG)")
	_ = cmd.MarkFlagRequired("label")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

func runCV(cmd *cobra.Command, e *env, o *cvOptions) error {
	spec, err := o.flags.options(cmd).Spec(o.model, o.from, o.label)
	if err != nil {
		return usageError{err}
	}
	metric := o.metric
	if metric == "roc_auc" || metric == "average_precision" {
		o.auc = true
	}
	ctx := cmd.Context()
	// cv stores nothing: without a database file it runs in memory rather than create one.
	de := *e
	if !dbExists(e.db) {
		de.db = ":memory:"
	}
	db, conn, closeAll, err := de.openConn(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	res, err := sqlnb.CrossValidate(ctx, conn, db, sqlnb.CVSpec{Train: spec, Folds: o.folds, Stratified: o.stratified,
		Seed: o.seed, Key: o.key, Alphas: o.alphas, VarSmoothings: o.vss, Metric: metric, AUC: o.auc, PosLabel: o.posLabel})
	if errors.Is(err, sqlnb.ErrPosLabel) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	printWarnings(e, o.model, res.Warnings)
	names := map[string]bool{}
	for _, s := range res.Settings {
		for k := range s.Mean {
			names[k] = true
		}
	}
	delete(names, "n")
	var metrics []string
	for k := range names {
		metrics = append(metrics, k)
	}
	sort.Strings(metrics)
	var perFold, summary [][]any
	for _, s := range res.Settings {
		for f, m := range s.Folds {
			for _, k := range metrics {
				if v, ok := m[k]; ok {
					perFold = append(perFold, []any{s.Params.Alpha, s.Params.VarSmoothing, int64(f), k, nanNil(v)})
				}
			}
		}
		for _, k := range metrics {
			summary = append(summary, []any{s.Params.Alpha, s.Params.VarSmoothing, k, nanNil(s.Mean[k]), nanNil(s.SD[k])})
		}
	}
	types5 := []string{"DOUBLE", "DOUBLE", "BIGINT", "VARCHAR", "DOUBLE"}
	if o.format == "table" {
		if err := writeResult(e.stdout, o.format, []string{"alpha", "var_smoothing", "fold", "metric", "value"}, types5, perFold); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
	}
	if err := writeResult(e.stdout, o.format, []string{"alpha", "var_smoothing", "metric", "mean", "sd"},
		[]string{"DOUBLE", "DOUBLE", "VARCHAR", "DOUBLE", "DOUBLE"}, summary); err != nil {
		return err
	}
	best := res.Settings[res.Best]
	fmt.Fprintf(e.stderr, "%d-fold cv in %.3fs; best by %s: alpha %g, var_smoothing %g (%s %.6g ± %.2g)\n", o.folds,
		res.Duration.Seconds(), metric, best.Params.Alpha, best.Params.VarSmoothing, metric, best.Mean[metric], best.SD[metric])
	if o.plot != "" && len(res.Settings) > 1 {
		param, logX := "alpha", false
		var pts []plots.SweepPoint
		bestX := best.Params.Alpha
		if len(o.alphas) <= 1 {
			param, logX, bestX = "var_smoothing", true, best.Params.VarSmoothing
		}
		for _, s := range res.Settings {
			x := s.Params.Alpha
			if param == "var_smoothing" {
				x = s.Params.VarSmoothing
			}
			pts = append(pts, plots.SweepPoint{X: x, Mean: s.Mean[metric], SD: s.SD[metric]})
		}
		files, err := plots.Sweep(pts, metric, param, bestX, logX, o.plot)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %d pictures to %s\n", len(files), o.plot)
	}
	return nil
}

func nanNil(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

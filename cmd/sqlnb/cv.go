package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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
	auc, noCurves      bool
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
It takes the training flags of train. Prints one row per setting and metric: the mean and sample standard
deviation over the folds, then each fold's value (fold1 … foldK), in every --format; the best setting by
--metric goes to stderr. Nothing is stored; without a --db file it runs in memory. In SQL: FROM nb_cv(...).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCV(cmd, e, o) },
	}
	f := cmd.Flags()
	d := sqlnb.DefaultParams()
	f.StringVar(&o.model, "model", "cv", "name of the run (nothing is stored)")
	f.StringVar(&o.label, "label", "", "label (class) column (required)")
	f.StringVar(&o.from, "from", "", "training source: table, query or file glob (required)")
	o.flags.addFeatures(cmd)
	o.flags.addTraining(cmd)
	o.flags.addParams(cmd, "alpha", "var_smoothing")
	f.Float64SliceVar(&o.alphas, "alpha", []float64{d.Float("alpha")}, "α values to sweep, comma-separated")
	f.Float64SliceVar(&o.vss, "var-smoothing", []float64{d.Float("var_smoothing")}, "var_smoothing values to sweep, comma-separated")
	// pflag shows a float slice's default with %f ("[0.000000]" for 1e-9).
	f.Lookup("alpha").DefValue = "[" + strconv.FormatFloat(d.Float("alpha"), 'g', -1, 64) + "]"
	f.Lookup("var-smoothing").DefValue = "[" + strconv.FormatFloat(d.Float("var_smoothing"), 'g', -1, 64) + "]"
	f.IntVar(&o.folds, "folds", 5, "number of folds k ≥ 2")
	f.BoolVar(&o.stratified, "stratified", false, "deal each class round-robin over the folds")
	f.Int64Var(&o.seed, "seed", 0, "seed of the fold assignment")
	f.StringVar(&o.key, "key", "", "column whose hash assigns folds (default: the whole row)")
	f.StringVar(&o.metric, "metric", "accuracy", "metric that picks the best setting: "+strings.Join(sqlnb.CVMetrics(), ", "))
	f.StringVar(&o.posLabel, "pos-label", "", "positive class of a two-class label for Brier, ROC-AUC and average precision (default: the second class)")
	f.BoolVar(&o.auc, "auc", false, "also compute ROC-AUC and average precision per fold (sorts every score, spilling beyond --memory-limit; default for cv: "+boundedMemory+")")
	f.BoolVar(&o.noCurves, "no-curves", false, "leave out everything that sorts the scores (ROC-AUC and average precision): the default, here to say so against --auc or --metric")
	f.StringVar(&o.format, "format", "table", formatHelp)
	f.StringVar(&o.plot, "plot", "", "directory for the metric-versus-smoothing picture (PNG and SVG)")
	_ = cmd.MarkFlagRequired("label")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

func runCV(cmd *cobra.Command, e *env, o *cvOptions) error {
	// --alpha and --var-smoothing are cv's own lists to sweep (cv.Alphas below), not the training flags
	// options reads: their training values stay the defaults.
	opts := o.flags.options(cmd)
	spec, err := opts.Spec(o.model, o.from, o.label)
	if err != nil {
		return usageError{err}
	}
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if !slices.Contains(sqlnb.CVMetrics(), o.metric) {
		return usageError{fmt.Errorf("--metric %q: use %s", o.metric, strings.Join(sqlnb.CVMetrics(), ", "))}
	}
	switch {
	case o.noCurves && o.auc:
		return usageError{fmt.Errorf("--no-curves leaves out ROC-AUC and average precision, which --auc asks for: give one of them")}
	case o.noCurves && (o.metric == "roc_auc" || o.metric == "average_precision"):
		return usageError{fmt.Errorf("--metric %s needs the sorting that --no-curves leaves out: give one of them", o.metric)}
	}
	if o.folds < 2 {
		return usageError{fmt.Errorf("--folds %d: use at least 2", o.folds)}
	}
	cv := sqlnb.CVSpec{Train: spec, Folds: o.folds, Stratified: o.stratified, Seed: o.seed, Key: o.key, Metric: o.metric,
		AUC: o.auc, PosLabel: o.posLabel, PosLabelGiven: cmd.Flags().Changed("pos-label")}
	if cmd.Flags().Changed("alpha") {
		cv.Alphas = o.alphas
	}
	if cmd.Flags().Changed("var-smoothing") {
		cv.VarSmoothings = o.vss
	}
	if o.plot != "" && len(cv.Alphas) > 1 && len(cv.VarSmoothings) > 1 {
		return usageError{fmt.Errorf("--plot draws the metric against one setting: sweep --alpha or --var-smoothing, not both " +
			"(or leave out --plot; the table lists every pair)")}
	}
	ctx := cmd.Context()
	// cv stores nothing: without a database file it runs in memory rather than create one.
	e.memoryDefault = boundedMemory
	de := *e
	if !dbExists(e.db) {
		de.db = ":memory:"
	}
	db, conn, closeAll, err := de.openConn(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	bar := e.track(ctx, conn, "cross-validating", o.from)
	res, err := sqlnb.CrossValidate(ctx, conn, db, cv)
	bar.clear()
	if errors.Is(err, sqlnb.ErrPosLabel) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	printWarnings(e, o.model, res.Warnings)
	if err := writeCV(e, o.format, res); err != nil {
		return err
	}
	metric := res.Metric
	best := res.Settings[res.Best]
	bar.summary("%d-fold cv in %.3fs; best by %s: alpha %g, var_smoothing %g (%s %.6g ± %.2g)", o.folds,
		res.Duration.Seconds(), metric, best.Params.Float("alpha"), best.Params.Float("var_smoothing"), metric, best.Mean[metric], best.SD[metric])
	if o.plot != "" && len(res.Settings) > 1 {
		param, logX := "alpha", false
		var pts []plots.SweepPoint
		bestX := best.Params.Float("alpha")
		if len(cv.Alphas) <= 1 {
			param, logX, bestX = "var_smoothing", true, best.Params.Float("var_smoothing")
		}
		for _, s := range res.Settings {
			x := s.Params.Float("alpha")
			if param == "var_smoothing" {
				x = s.Params.Float("var_smoothing")
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

// writeCV writes one row per setting and metric — alpha, var_smoothing, metric, mean, sd, then fold1 …
// foldK — in format; json is an object with the metric that chose, the best setting and the rows (each
// with its folds as a list).
func writeCV(e *env, format string, res *sqlnb.CVResult) error {
	rows := res.Rows()
	if format == "json" {
		best := res.Settings[res.Best]
		out := map[string]any{"metric": res.Metric, "best": map[string]any{"alpha": best.Params.Float("alpha"), "var_smoothing": best.Params.Float("var_smoothing"),
			"mean": jsonValue(best.Mean[res.Metric]), "sd": jsonValue(best.SD[res.Metric])}}
		list := []map[string]any{}
		for _, r := range rows {
			folds := make([]any, len(r.Folds))
			for i, v := range r.Folds {
				folds[i] = jsonValue(nanNil(v))
			}
			list = append(list, map[string]any{"alpha": r.Alpha, "var_smoothing": r.VarSmoothing, "metric": r.Metric,
				"mean": jsonValue(nanNil(r.Mean)), "sd": jsonValue(nanNil(r.SD)), "folds": folds})
		}
		out["results"] = list
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	names := []string{"alpha", "var_smoothing", "metric", "mean", "sd"}
	types := []string{"DOUBLE", "DOUBLE", "VARCHAR", "DOUBLE", "DOUBLE"}
	for f := range len(res.Settings[0].Folds) {
		names, types = append(names, fmt.Sprintf("fold%d", f+1)), append(types, "DOUBLE")
	}
	data := make([][]any, len(rows))
	for i, r := range rows {
		data[i] = []any{r.Alpha, r.VarSmoothing, r.Metric, nanNil(r.Mean), nanNil(r.SD)}
		for _, v := range r.Folds {
			data[i] = append(data[i], nanNil(v))
		}
	}
	return writeResult(e.stdout, format, names, types, data)
}

func nanNil(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/plots"
)

type compareOptions struct {
	label, from, kinds string
	flags              modelFlags
	sizes              []int
	test               float64
	repeats            int
	seed               int64
	plot, format       string
}

func newCompareCmd(e *env) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare --from SOURCE --label COLUMN --kinds gaussian,logistic,lda,qda --sizes 50,100,200 [--plot DIR]",
		Short: "Learning curves: each kind trained on growing training sets, tested on held-out rows",
		Long: `Compare kinds of model on SOURCE as their training set grows (seed 004: Ng and Jordan's comparison of
generative and discriminative classifiers — naive Bayes reaches its asymptote with fewer rows, logistic
regression reaches a lower one). A hash of each row (with --seed) holds out --test of the rows; the others,
in hash order, are the training pool, and a model of size n is trained on its first n rows, so the
training sets are nested. Every model scores the held-out rows in one scan. Models are not stored. A
point where a model cannot be trained (a class missing from a small set, a singular covariance) is
reported with the reason. --repeats averages over that many splits (seeds --seed, --seed+1, ...).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCompare(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.label, "label", "", "label (class) column (required)")
	f.StringVar(&o.from, "from", "", "source: table, query or file glob (required)")
	f.StringVar(&o.kinds, "kinds", "gaussian,logistic", "kinds to compare, comma-separated (each applies to every feature)")
	f.IntSliceVar(&o.sizes, "sizes", []int{25, 50, 100, 200}, "training set sizes")
	f.Float64Var(&o.test, "test", 0.3, "fraction of the rows held out for testing")
	f.IntVar(&o.repeats, "repeats", 1, "splits to average over")
	f.Int64Var(&o.seed, "seed", 0, "seed of the split")
	f.StringVar(&o.plot, "plot", "", "directory for the learning-curve pictures (PNG and SVG)")
	f.StringVar(&o.format, "format", "table", formatHelp)
	cmd.Flags().StringSliceVar(&o.flags.features, "features", nil, "feature columns, comma-separated (default: every column but label and weight)")
	cmd.Flags().StringSliceVar(&o.flags.exclude, "exclude", nil, "columns to leave out of the features, comma-separated (identifiers, leaks)")
	cmd.Flags().StringVar(&o.flags.weight, "weight", "", "sample-weight column")
	o.flags.addParams(cmd)
	_ = cmd.MarkFlagRequired("label")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

func runCompare(cmd *cobra.Command, e *env, o *compareOptions) error {
	spec, err := o.flags.options(cmd).Spec("compare", o.from, o.label)
	if err != nil {
		return usageError{err}
	}
	if o.repeats < 1 {
		return usageError{fmt.Errorf("--repeats %d: average over at least 1 split", o.repeats)}
	}
	if !(o.test > 0 && o.test < 1) { // the library reads 0 as "the default"; a typed 0 is an error
		return usageError{fmt.Errorf("--test %v: the held-out fraction must be in (0, 1)", o.test)}
	}
	var kinds []sqlnb.Kind
	for _, name := range strings.Split(o.kinds, ",") {
		k, err := sqlnb.ParseKind(strings.TrimSpace(name))
		switch {
		case err != nil:
			return usageError{fmt.Errorf("--kinds %q: %v", name, err)}
		case k == "":
			return usageError{fmt.Errorf("--kinds %q: name the kinds to compare (gaussian, logistic, lda, qda, ...), not auto or an empty entry", name)}
		case slices.Contains(kinds, k):
			return usageError{fmt.Errorf("--kinds: %s is named twice", k)}
		}
		kinds = append(kinds, k)
	}
	ctx := cmd.Context()
	// compare stores nothing: without a database file it runs in memory rather than create one (as cv).
	de := *e
	if !dbExists(e.db) {
		de.db = ":memory:"
	}
	db, conn, closeAll, err := de.openConn(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	bar := e.track(ctx, conn, "comparing", o.from)
	res, err := sqlnb.Compare(ctx, conn, db, sqlnb.CompareSpec{Train: spec, Kinds: kinds, Sizes: o.sizes, TestFraction: o.test,
		Repeats: o.repeats, Seed: o.seed})
	bar.clear()
	if err != nil {
		return err
	}
	var data [][]any
	for _, p := range res.Points {
		if p.Rows == 0 {
			data = append(data, []any{string(p.Kind), int64(p.Size), nil, nil, nil, nil, nil, p.Err})
			continue
		}
		acc := p.Mean["accuracy"]
		data = append(data, []any{string(p.Kind), int64(p.Size), int64(math.Round(p.Rows)), 1 - acc, nanNil(p.SD["accuracy"]), p.Mean["log_loss"], p.Mean["f1_macro"], nullIfEmpty(p.Err)})
	}
	if err := writeResult(e.stdout, o.format, []string{"kind", "size", "n_train", "test_error", "sd", "log_loss", "f1_macro", "note"},
		[]string{"VARCHAR", "BIGINT", "BIGINT", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE", "VARCHAR"}, data); err != nil {
		return err
	}
	bar.summary("%d kinds × %d sizes × %d split(s), %d test rows, in %.3fs", len(kinds), len(o.sizes), o.repeats, res.TestRows, res.Duration.Seconds())
	if o.plot != "" {
		var curves []plots.Curve
		for _, k := range kinds {
			c := plots.Curve{Name: string(k)}
			for _, p := range res.Points {
				if p.Kind == k && p.Rows > 0 {
					sd := p.SD["accuracy"]
					if math.IsNaN(sd) {
						sd = 0
					}
					c.Points = append(c.Points, plots.SweepPoint{X: p.Rows, Mean: 1 - p.Mean["accuracy"], SD: sd})
				}
			}
			curves = append(curves, c)
		}
		files, err := plots.LearningCurves(curves, o.plot)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %d pictures to %s\n", len(files), o.plot)
	}
	return nil
}

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

// modelFlags are the training and hyperparameter flags, defined once and shared by train, cv and models
// set.
type modelFlags struct {
	features     []string
	exclude      []string
	kind         string
	featureKinds []string
	weight       string
	// params holds each hyperparameter flag's value (addParams), by parameter name.
	params map[string]any

	force                                 bool
	terms, doc, term, count, termsFeature string
	ngrams                                int
	stopWords                             string
	binarize                              float64
	semiSupervised                        bool
}

// addParams adds a flag for every hyperparameter the families declare (sqlnb.ParamSpecs): typed by the
// declaration, with its default and help. skip names parameters the command has flags of its own for (cv's
// sweeps of alpha and var_smoothing).
func (f *modelFlags) addParams(cmd *cobra.Command, skip ...string) {
	if f.params == nil {
		f.params = map[string]any{}
	}
	fl := cmd.Flags()
	for _, s := range sqlnb.ParamSpecs() {
		if slices.Contains(skip, s.Name) {
			continue
		}
		help := s.Help
		if s.Name == "tol" {
			help += fmt.Sprintf(" (--semi-supervised: default %g)", sqlnb.DefaultEMTol)
		}
		switch s.Type {
		case nb.ParamFloat:
			v := new(float64)
			fl.Float64Var(v, s.Flag(), s.Default.(float64), help)
			f.params[s.Name] = v
		case nb.ParamInt:
			v := new(int64)
			fl.Int64Var(v, s.Flag(), s.Default.(int64), help)
			f.params[s.Name] = v
		case nb.ParamBool:
			v := new(bool)
			fl.BoolVar(v, s.Flag(), s.Default.(bool), help)
			f.params[s.Name] = v
		default:
			v := new(string)
			fl.StringVar(v, s.Flag(), s.Default.(string), help)
			f.params[s.Name] = v
		}
	}
}

// addFeatures adds the flags that choose features and their kinds: --features, --exclude, --kind,
// --feature-kind, --weight.
func (f *modelFlags) addFeatures(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.features, "features", nil, "feature columns, comma-separated (default: every column but label and weight)")
	cmd.Flags().StringSliceVar(&f.exclude, "exclude", nil, "columns to leave out of the features, comma-separated (identifiers, leaks)")
	cmd.Flags().StringVar(&f.kind, "kind", "auto", "kind of every feature: auto (from the column type), "+strings.Join(sqlnb.KindNames(), ", "))
	cmd.Flags().StringArrayVar(&f.featureKinds, "feature-kind", nil, "kind of a feature, column=kind; several comma-separated or the flag repeated")
	cmd.Flags().StringVar(&f.weight, "weight", "", "sample-weight column")
}

// addTraining adds the flags that shape what training reads: a term table, the tokenizer, the binarize
// threshold, --semi-supervised and --force.
func (f *modelFlags) addTraining(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.terms, "terms", "", "long term table (document id, term, count) joined to --from on --doc")
	fl.StringVar(&f.doc, "doc", "", "document id column (in --from and --terms)")
	fl.StringVar(&f.term, "term", "", "term column of --terms")
	fl.StringVar(&f.count, "count", "", "count column of --terms")
	fl.StringVar(&f.termsFeature, "terms-feature", "terms", "name of the text feature made from --terms")
	fl.IntVar(&f.ngrams, "ngrams", 1, "text features: word n-grams up to this length")
	fl.StringVar(&f.stopWords, "stop-words", "", "text features: remove stop words (english)")
	fl.Float64Var(&f.binarize, "binarize", 0, "Bernoulli features: present when the value (a text term's count) is > this")
	fl.BoolVar(&f.semiSupervised, "semi-supervised", false, "also learn from the rows with a NULL label, by EM (naive Bayes kinds; --tol, --max-iter)")
	fl.BoolVar(&f.force, "force", false, fmt.Sprintf("train even when the label has more than %d classes", sqlnb.MaxClasses))
}

// options turns the flags that were set into sqlnb.Options.
func (f *modelFlags) options(cmd *cobra.Command) sqlnb.Options {
	o := sqlnb.Options{Features: f.features, Exclude: f.exclude, Force: f.force, Kind: f.kind, FeatureKinds: f.featureKinds,
		Weight: f.weight, Terms: f.terms, Doc: f.doc, Term: f.term, Count: f.count,
		TermsFeature: f.termsFeature, StopWords: f.stopWords, Binarize: f.binarize, SemiSupervised: f.semiSupervised,
		Hyperparams: map[string]any{}}
	if cmd.Flags().Changed("ngrams") {
		o.Ngrams = &f.ngrams
	}
	for _, s := range sqlnb.ParamSpecs() {
		v, ok := f.params[s.Name]
		if !ok || !cmd.Flags().Changed(s.Flag()) {
			continue
		}
		switch v := v.(type) {
		case *float64:
			o.Hyperparams[s.Name] = *v
		case *int64:
			o.Hyperparams[s.Name] = *v
		case *bool:
			o.Hyperparams[s.Name] = *v
		case *string:
			o.Hyperparams[s.Name] = *v
		}
	}
	return o
}

// printWarnings writes warnings about model to stderr.
func printWarnings(e *env, model string, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "warning: model %q: %s\n", model, w)
	}
}

type trainOptions struct {
	model, label, from string
	by                 []string
	flags              modelFlags
	// add, forget: add the rows' statistics to the stored model, or remove them (update.go).
	add, forget bool
}

func newTrainCmd(e *env) *cobra.Command {
	o := &trainOptions{}
	cmd := &cobra.Command{
		Use:   "train --model NAME --label COLUMN --from SOURCE",
		Short: "Train a model with SQL aggregations and store it in the database",
		Long: `Train a naive Bayes model on SOURCE (a table or view, a SELECT query, or a .parquet/.csv/.json file or glob)
and store it as model NAME, replacing an existing model of that name atomically.

Numeric columns are Gaussian, VARCHAR, ENUM and BOOLEAN columns categorical, unless --kind or --feature-kind
says otherwise. NULL labels are skipped (with --semi-supervised those rows take part through EM: each counts in every
class with its posterior); NULL feature values are left out of that feature's statistics.

--append adds the statistics of the rows of SOURCE to the stored model NAME (classes may be new), --forget
removes those of rows it was trained on: the rows are read as the model's training read them (features, kinds,
weight, binarize, tokenizer; flags given must be the model's), the result is exact, and the model is replaced
atomically. --label defaults to the model's then.

--by col[,col] trains one model per group of those columns in the same scan, stored under NAME: scoring picks
each row's group model by its group columns; a group not seen in training (or a NULL group value) is scored by
the pooled model, the model of all rows.

Kinds:
` + sqlnb.KindsHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTrain(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model name (required)")
	f.StringVar(&o.label, "label", "", "label (class) column (required; with --append or --forget, the model's)")
	f.StringVar(&o.from, "from", "", "training source: table, query or file glob (required)")
	f.StringSliceVar(&o.by, "by", nil, "group columns, comma-separated: one model per group (unseen groups score with the pooled model)")
	o.flags.addFeatures(cmd)
	o.flags.addTraining(cmd)
	o.flags.addParams(cmd)
	f.BoolVar(&o.add, "append", false, "add the rows' statistics to the stored model (scikit-learn's partial_fit)")
	f.BoolVar(&o.forget, "forget", false, "remove the statistics of rows the stored model was trained on (deletion requests)")
	for _, r := range []string{"model"} { // --from and --label: runTrain (--label is optional with --append, --forget)
		_ = cmd.MarkFlagRequired(r)
	}
	return cmd
}

func runTrain(cmd *cobra.Command, e *env, o *trainOptions) error {
	var missing []string
	if o.from == "" {
		missing = append(missing, `"from"`)
	}
	if o.label == "" && !o.add && !o.forget {
		missing = append(missing, `"label"`)
	}
	if len(missing) > 0 { // as cobra words it
		return usageError{fmt.Errorf("required flag(s) %s not set", strings.Join(missing, ", "))}
	}
	if err := nb.ValidateName(o.model); err != nil {
		return usageError{err}
	}
	if o.add || o.forget {
		if len(o.by) > 0 {
			return usageError{fmt.Errorf("--by makes a new per-group model: it does not combine with --append or --forget")}
		}
		return runUpdate(cmd, e, o)
	}
	opts := o.flags.options(cmd)
	opts.By = o.by
	spec, err := opts.Spec(o.model, o.from, o.label)
	if err != nil {
		return usageError{err}
	}
	db, err := e.open()
	if err != nil {
		return err
	}
	defer db.Close()
	spec.Registrar = db
	ctx := cmd.Context()
	conn, err := db.Conn(ctx) // one connection, whose progress the bar shows
	if err != nil {
		return err
	}
	defer conn.Close()
	names, _ := store.ModelNames(ctx, conn) // to say when training replaces a model (the summary line)
	replaced := slices.Contains(names, spec.Model)
	bar := e.track(ctx, conn, "training", o.from)
	res, err := sqlnb.Train(ctx, conn, spec)
	bar.clear()
	if err != nil {
		return err
	}
	m := res.Model
	printWarnings(e, m.Name, res.Warnings)
	skipped := fmt.Sprintf("%d skipped: NULL label", m.SkippedRows)
	if m.IncompleteRows > 0 {
		skipped += fmt.Sprintf("; %d skipped: a missing feature value", m.IncompleteRows)
	}
	fit := ""
	if m.UnlabelledRows > 0 {
		skipped = fmt.Sprintf("and %d unlabelled rows", m.UnlabelledRows)
		fit = fmt.Sprintf(", %d EM steps (log-likelihood %.10g)", m.Iterations, m.LogLikelihood)
	} else if m.Iterations > 0 {
		fit = fmt.Sprintf(", %d Newton steps (final gradient %.2g)", m.Iterations, m.GradNorm)
	}
	if len(m.By) > 0 {
		fit += fmt.Sprintf(", %d group models by %s", len(m.Groups), groupColumns(m))
	}
	if replaced {
		fit += ", replacing the model of that name (--append adds rows to it instead)"
	}
	bar.summary("trained %q on %d rows (%s): %d classes, %d features (%s)%s in %.3fs",
		m.Name, m.Rows, skipped, len(m.Classes), len(m.Features), strings.Join(m.Kinds(), ", "), fit, res.Duration.Seconds())
	return nil
}

// groupColumns lists a per-group model's group columns: "region, year".
func groupColumns(m *sqlnb.Model) string {
	names := make([]string, len(m.By))
	for i, b := range m.By {
		names[i] = b.Name
	}
	return strings.Join(names, ", ")
}

package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// newModelsShowCmd is `models show`: a model's hyperparameters, priors and per-feature parameters (or, with
// --linear, its linear form), in the format format names.
func newModelsShowCmd(e *env, format *string) *cobra.Command {
	var linear bool
	show := &cobra.Command{
		Use: "show MODEL [--linear]", Short: "Show a model's hyperparameters, priors and per-feature parameters", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := e.openReadOnly()
			if err != nil {
				return err
			}
			defer db.Close()
			m, err := sqlnb.Load(cmd.Context(), db, args[0])
			if err != nil {
				return err
			}
			s, err := sqlnb.Compile(m)
			if err != nil {
				return err
			}
			if linear {
				return showLinear(e, s, *format)
			}
			if *format == "table" {
				fmt.Fprintf(e.stdout, "model %q: label %q (%s), trained on %s: %d rows (%d skipped), %d classes, %d features\n",
					m.Name, m.Label, m.LabelType, m.Source, m.Rows, m.SkippedRows+m.IncompleteRows, len(m.Classes), len(m.Features))
				fmt.Fprintf(e.stdout, "%s, created %s\n\n", sqlnb.ParamsSummary(m), m.Created.Format("2006-01-02 15:04:05"))
			}
			var data [][]any
			for _, p := range sqlnb.Parameters(s) {
				var count, estimate any = p.Count, p.Estimate
				if math.IsNaN(p.Count) {
					count = nil
				}
				if math.IsNaN(p.Estimate) {
					estimate = nil // no prior: the scores ignore it (complement)
				}
				var class, value any = p.Class, p.Value // a class or a category may be named ""
				if p.NoClass {
					class = nil
				}
				if !p.HasValue {
					value = nil
				}
				data = append(data, []any{nullIfEmpty(p.Feature), nullIfEmpty(string(p.Kind)), class, value, p.Parameter, estimate, count})
			}
			if err := writeResult(e.stdout, *format, []string{"feature", "kind", "class", "value", "parameter", "estimate", "count"},
				[]string{"VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE", "DOUBLE"}, data); err != nil {
				return err
			}
			if *format != "table" {
				return nil
			}
			fmt.Fprintf(e.stdout, "\nmost informative features per class (log-likelihood ratio against the likeliest other class):\n")
			var inf [][]any
			for _, x := range sqlnb.MostInformative(s, 5) {
				inf = append(inf, []any{x.Class, x.Feature, x.Value, x.LLR})
			}
			return writeResult(e.stdout, *format, []string{"class", "feature", "value", "llr"}, []string{"VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE"}, inf)
		},
	}
	show.Flags().BoolVar(&linear, "linear", false, "two-class models: the linear form of the log-odds, w0 + Σ w_j x_j (Gaussian NB with variance pooled, Bernoulli, categorical, lda, logistic)")
	return show
}

// showLinear prints the linear form of a two-class model: a header line (table format), then the weights.
func showLinear(e *env, s *sqlnb.Scorer, format string) error {
	lin, err := sqlnb.LinearForm(s)
	if err != nil {
		return err
	}
	if format == "table" {
		fmt.Fprintf(e.stdout, "model %q: log p(%q | x) / p(%q | x) = w0 + Σ w_j x_j (x_j the value; for a value row, 1 when the feature equals it)\n"+
			"for rows without a missing value and with levels seen in training (else see nb_explain)\n\n", s.Model.Name, lin.Positive, lin.Negative)
	}
	data := [][]any{{lin.Positive, nil, nil, lin.Intercept}}
	for _, t := range lin.Terms {
		var value any = t.Value
		if !t.HasValue {
			value = nil
		}
		data = append(data, []any{lin.Positive, t.Feature, value, t.Weight})
	}
	return writeResult(e.stdout, format, []string{"class", "feature", "value", "weight"}, []string{"VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE"}, data)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

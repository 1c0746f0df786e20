package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

func newModelsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List, show, drop, export, import or change stored models",
		// Without these cobra prints the help for `models rm m` and exits 0, having done nothing.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return usageError{fmt.Errorf("%s (commands: list, show, drop, export, import, set, upgrade)", msg)}
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.SuggestionsMinimumDistance = 2
	var format string
	cmd.PersistentFlags().StringVar(&format, "format", "table", formatHelp)

	list := &cobra.Command{
		Use: "list", Aliases: []string{"ls"}, Short: "List the stored models", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := e.openReadOnly()
			if err != nil {
				return err
			}
			defer db.Close()
			return query(cmd.Context(), db.DB, e.stdout, format, "FROM nb_models()")
		},
	}
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
				return showLinear(e, s, format)
			}
			if format == "table" {
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
			if err := writeResult(e.stdout, format, []string{"feature", "kind", "class", "value", "parameter", "estimate", "count"},
				[]string{"VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE", "DOUBLE"}, data); err != nil {
				return err
			}
			if format != "table" {
				return nil
			}
			fmt.Fprintf(e.stdout, "\nmost informative features per class (log-likelihood ratio against the likeliest other class):\n")
			var inf [][]any
			for _, x := range sqlnb.MostInformative(s, 5) {
				inf = append(inf, []any{x.Class, x.Feature, x.Value, x.LLR})
			}
			return writeResult(e.stdout, format, []string{"class", "feature", "value", "llr"}, []string{"VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE"}, inf)
		},
	}
	show.Flags().BoolVar(&linear, "linear", false, "two-class models: the linear form of the log-odds, w0 + Σ w_j x_j (Gaussian NB with variance pooled, Bernoulli, categorical, lda, logistic)")
	drop := &cobra.Command{
		Use: "drop MODEL", Aliases: []string{"rm", "remove", "delete"}, Short: "Drop a stored model", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := e.openExisting()
			if err != nil {
				return err
			}
			defer db.Close()
			if err := sqlnb.Drop(cmd.Context(), db, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "dropped %q\n", args[0])
			return nil
		},
	}
	var exportOut string
	export := &cobra.Command{
		Use: "export MODEL [--output FILE]", Short: "Write a model as JSON (to stdout or --output)", Args: cobra.ExactArgs(1),
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
			if exportOut == "" {
				return store.Export(e.stdout, m)
			}
			var buf bytes.Buffer
			if err := store.Export(&buf, m); err != nil {
				return err
			}
			if err := outfile.WriteFile(exportOut, buf.Bytes()); err != nil {
				return err
			}
			if !e.quiet {
				fmt.Fprintf(e.stderr, "wrote model %q to %s\n", m.Name, exportOut)
			}
			return nil
		},
	}
	export.Flags().StringVar(&exportOut, "output", "", "JSON file to write")
	var importName string
	var replace bool
	imp := &cobra.Command{
		Use: "import FILE|- [--name NAME] [--replace]", Short: "Store a model from JSON written by export (- reads standard input; a stored model of that name only with --replace)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := e.open()
			if err != nil {
				return err
			}
			defer db.Close()
			var in io.Reader = e.stdin // "-": standard input
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			m, err := sqlnb.Import(in, importName)
			if err != nil {
				return err
			}
			if err := sqlnb.SaveImported(cmd.Context(), db, m, replace); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "imported %q: %d classes, %d features\n", m.Name, len(m.Classes), len(m.Features))
			return nil
		},
	}
	imp.Flags().StringVar(&importName, "name", "", "store under this name instead of the one in the file")
	imp.Flags().BoolVar(&replace, "replace", false, "replace a stored model of the same name")
	var sf modelFlags
	set := &cobra.Command{
		Use:   "set MODEL [--alpha A] [--var-smoothing V] [--variance class|pooled|sample] [--priors P] [--threshold T --eps E] [--reg-param R] [--shrinkage A]",
		Short: "Change a model's hyperparameters without retraining", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := e.openExisting()
			if err != nil {
				return err
			}
			defer db.Close()
			m, err := sqlnb.Load(cmd.Context(), db, args[0])
			if err != nil {
				return err
			}
			p, given, err := sf.options(cmd).Params(m.Params)
			if err != nil {
				return usageError{err}
			}
			unused := sqlnb.UnusedChanges(m, p)
			if m, err = sqlnb.SetParams(cmd.Context(), db, args[0], p, given); err != nil {
				return err
			}
			for _, w := range append(nb.ParamWarnings(m.Params), unused...) {
				fmt.Fprintf(e.stderr, "warning: model %q: %s\n", m.Name, w)
			}
			fmt.Fprintf(e.stderr, "model %q: %s\n", m.Name, sqlnb.ParamsSummary(m))
			return nil
		},
	}
	sf.addParams(set)
	// A parameter that shaped the fit (logistic regression's C, EM's tol) needs a new fit: set says so when
	// given one, and its help does not offer them.
	for _, s := range sqlnb.ParamSpecs() {
		if s.Fitted {
			_ = set.Flags().MarkHidden(s.Flag())
		}
	}
	upgrade := &cobra.Command{
		Use: "upgrade", Short: "Upgrade the model store of an earlier sqlnb to this version's format", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := e.openExisting()
			if err != nil {
				return err
			}
			defer db.Close()
			from, err := sqlnb.Upgrade(cmd.Context(), db)
			if err != nil {
				return err
			}
			if db.UpgradedFrom() != 0 { // opening the database upgraded it already, and said so
				return nil
			}
			if from == nb.FormatVersion {
				fmt.Fprintf(e.stderr, "the model store is at format version %d: nothing to do\n", from)
			} else {
				fmt.Fprintf(e.stderr, "upgraded the model store from format version %d to %d\n", from, nb.FormatVersion)
			}
			return nil
		},
	}
	cmd.AddCommand(list, show, drop, export, imp, set, upgrade)
	return cmd
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

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// newModelsSetCmd is `models set`: a model's hyperparameters changed without retraining.
func newModelsSetCmd(e *env) *cobra.Command {
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
	return set
}

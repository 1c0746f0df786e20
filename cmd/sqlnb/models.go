package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// newModelsCmd is `models`: one subcommand per thing to do with the stored models, sharing --format.
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
	cmd.AddCommand(newModelsListCmd(e, &format), newModelsShowCmd(e, &format), newModelsDropCmd(e), newModelsExportCmd(e),
		newModelsImportCmd(e), newModelsSetCmd(e), newModelsUpgradeCmd(e))
	return cmd
}

// newModelsListCmd is `models list`: the stored models, as nb_models() lists them, in the format format names.
func newModelsListCmd(e *env, format *string) *cobra.Command {
	list := &cobra.Command{
		Use: "list", Aliases: []string{"ls"}, Short: "List the stored models", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := e.openReadOnly()
			if err != nil {
				return err
			}
			defer db.Close()
			return query(cmd.Context(), db.DB, e.stdout, *format, "FROM nb_models()")
		},
	}
	return list
}

// newModelsDropCmd is `models drop`.
func newModelsDropCmd(e *env) *cobra.Command {
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
	return drop
}

// newModelsUpgradeCmd is `models upgrade`: the model store of an earlier sqlnb brought to this version's format.
func newModelsUpgradeCmd(e *env) *cobra.Command {
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
	return upgrade
}

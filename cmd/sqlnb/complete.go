package main

import (
	"context"
	"database/sql"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/shell"
)

// completeModelFlag completes --model with the models stored in the --db database. It opens the file
// read-only and never creates it.
func completeModelFlag(e *env) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return shell.CompleteModel(modelNames(e.db), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// modelNames lists the models of the database file dsn, read-only; nothing when it does not exist.
func modelNames(dsn string) []string {
	path, params, _ := strings.Cut(dsn, "?")
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return nil
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return nil
	}
	if params != "" {
		params += "&"
	}
	c, err := duckdb.NewConnector(path+"?"+params+"access_mode=read_only", nil)
	if err != nil {
		return nil
	}
	db := sql.OpenDB(c)
	defer db.Close()
	return shell.ModelNames(context.Background(), db)
}

// registerCompletions makes `sqlnb __complete` (cobra's shell completion) offer the stored models for
// every --model flag and for the MODEL argument of the models subcommands.
func registerCompletions(root *cobra.Command, e *env) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("model") != nil {
			_ = c.RegisterFlagCompletionFunc("model", completeModelFlag(e))
		}
		if c.Parent() != nil && c.Parent().Name() == "models" && strings.Contains(c.Use, " MODEL") && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return shell.CompleteModel(modelNames(e.db), toComplete), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

type mergeOptions struct {
	into           string
	replace, force bool
}

func newMergeCmd(e *env) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge --into NAME MODEL MODEL...",
		Short: "Merge models trained on disjoint rows into the model of their union",
		Long: `Merge stored models trained on disjoint rows of one source (shards, machines, days) into the model trained on
all of them, exactly: class counts and every statistic add up (moments by Chan et al.'s pairwise update). The
models must have the same label, features (names, kinds, binarize thresholds, tokenizer settings) and
hyperparameters; logistic regression, which is fitted rather than summed, cannot be merged.

NAME is stored in one transaction. It may be one of the models merged (it is replaced); another stored model
of that name is replaced only with --replace. Whether the rows were disjoint cannot be checked: rows in two
models count twice.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(cmd, e, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.into, "into", "", "name of the merged model (required)")
	f.BoolVar(&o.replace, "replace", false, "replace a stored model NAME that is not one of the models merged")
	f.BoolVar(&o.force, "force", false, fmt.Sprintf("merge even when the classes number more than %d", sqlnb.MaxClasses))
	_ = cmd.MarkFlagRequired("into")
	cmd.ValidArgsFunction = completeModelFlag(e)
	_ = cmd.RegisterFlagCompletionFunc("into", completeModelFlag(e))
	return cmd
}

func runMerge(cmd *cobra.Command, e *env, o *mergeOptions, inputs []string) error {
	if err := nb.ValidateName(o.into); err != nil {
		return usageError{err}
	}
	db, err := e.openExisting()
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	ctx := cmd.Context()
	conn, err := db.Conn(ctx) // one connection, whose progress the bar shows
	if err != nil {
		return err
	}
	defer conn.Close()
	bar := e.track(ctx, conn, "merging", "")
	m, err := sqlnb.MergeModels(ctx, conn, sqlnb.MergeSpec{Into: o.into, Inputs: inputs, Replace: o.replace, Force: o.force})
	bar.clear()
	if err != nil {
		return err
	}
	quoted := make([]string, len(inputs))
	for i, n := range inputs {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	bar.summary("merged %s into %q: %d rows, %d classes, %d features (%s) in %.3fs",
		strings.Join(quoted, ", "), m.Name, m.Rows, len(m.Classes), len(m.Features), strings.Join(m.Kinds(), ", "), time.Since(start).Seconds())
	return nil
}

package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// runUpdate is train --append and train --forget: the flags given must be the model's (sqlnb.UpdateSpec),
// those not given take the model's.
func runUpdate(cmd *cobra.Command, e *env, o *trainOptions) error {
	if o.add && o.forget {
		return usageError{errors.New("--append and --forget exclude each other: add rows or remove them, in two commands")}
	}
	opts := o.flags.options(cmd)
	spec := sqlnb.UpdateSpec{Model: o.model, Source: o.from, Label: o.label, Options: opts, BinarizeSet: cmd.Flags().Changed("binarize")}
	db, err := e.openExisting()
	if err != nil {
		return err
	}
	defer db.Close()
	update, verb, prep, doing := sqlnb.Append, "appended", "to", "appending"
	if o.forget {
		update, verb, prep, doing = sqlnb.Forget, "forgot", "of", "forgetting"
	}
	ctx := cmd.Context()
	conn, err := db.Conn(ctx) // one connection, whose progress the bar shows
	if err != nil {
		return err
	}
	defer conn.Close()
	bar := e.track(ctx, conn, doing, o.from)
	res, err := update(ctx, conn, spec)
	bar.clear()
	if err != nil {
		return err
	}
	m, p := res.Model, res.Part
	printWarnings(e, m.Name, append(nb.ParamWarnings(m.Params), res.Warnings...))
	skipped := fmt.Sprintf("%d skipped: NULL label", p.SkippedRows)
	if p.IncompleteRows > 0 {
		skipped += fmt.Sprintf("; %d skipped: a missing feature value", p.IncompleteRows)
	}
	bar.summary("%s %d rows %s %q (%s): now %d rows, %d classes, %d features (%s) in %.3fs",
		verb, p.Rows, prep, m.Name, skipped, m.Rows, len(m.Classes), len(m.Features), strings.Join(m.Kinds(), ", "), res.Duration.Seconds())
	return nil
}

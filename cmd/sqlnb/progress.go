package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sqlnb/sqlnb/internal/output"
	"github.com/sqlnb/sqlnb/internal/progress"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// tracker shows a command's progress on stderr, if stderr is a terminal and not --quiet, and writes its
// one-line summary unless --quiet.
type tracker struct {
	e    *env
	stop func()
}

// track starts the progress bar of a command (desc: what it does) whose statements run on conn; source,
// if not empty, is the source it reads, whose estimated rows the bar counts. Without a terminal, or with
// --quiet, it draws nothing and changes nothing on conn.
func (e *env) track(ctx context.Context, conn *sql.Conn, desc, source string) *tracker {
	t := &tracker{e: e, stop: func() {}}
	if e.quiet || !output.IsTerminal(e.stderr) {
		return t
	}
	var poll func() float64
	var total int64
	if conn != nil {
		poll, _ = progress.Enable(ctx, conn)
		if source != "" {
			if src, err := nb.ResolveSource(ctx, conn, source); err == nil {
				total, _ = sqlnb.EstimateRows(ctx, conn, src)
			}
		}
	}
	t.stop = progress.Start(e.stderr, desc, poll, total, progress.Delay)
	return t
}

// clear erases the bar (for good).
func (t *tracker) clear() {
	t.stop()
	t.stop = func() {}
}

// summary erases the bar and writes the command's one-line summary on stderr, unless --quiet.
func (t *tracker) summary(format string, args ...any) {
	t.clear()
	if !t.e.quiet {
		fmt.Fprintf(t.e.stderr, format+"\n", args...)
	}
}

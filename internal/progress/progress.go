package progress

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/sqlnb/sqlnb/udf"
)

// Delay is how long a statement runs before its progress bar shows: quick commands draw nothing.
const Delay = 500 * time.Millisecond

// Enable turns on DuckDB's progress reporting on conn (without DuckDB's own printed bar) and
// returns the function that reads it (udf.Progress: 0–100, -1 when DuckDB cannot tell).
func Enable(ctx context.Context, conn *sql.Conn) (func() float64, error) {
	if _, err := conn.ExecContext(ctx, "SET enable_progress_bar = true; SET enable_progress_bar_print = false"); err != nil {
		return nil, err
	}
	return udf.Progress(conn)
}

// Start draws on w, from delay on until stop is called, the progress of the statements that poll
// reports (poll may be nil): a bar with the percentage DuckDB reports for the running statement and its
// predicted time left; with total > 0 (the source's rows, as DuckDB estimates them), also the rows that
// share of the statement stands for and their rate; where DuckDB cannot measure progress (-1, or 0 from a
// source it cannot measure), a spinner with the elapsed time. A command runs several statements (training:
// one scan per family, evaluation: the scoring scan, then one sort per class): when the percentage falls
// back, a new statement has started and the bar starts again as the next step, with its own rate and
// time left. stop ends the drawing goroutine, waits for it and erases the bar: nothing draws after stop
// returns. progressbar's own spinner goroutine (spinnerChangeInterval) stays off: it stops only when the
// bar reaches its end, which a spinner never does, so it went on drawing over the shell's prompt.
func Start(w io.Writer, desc string, poll func() float64, total int64, delay time.Duration) (stop func()) {
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		started := time.Now()
		var bar *progressbar.ProgressBar
		spinning := false
		// eraseLine erases the whole terminal line: the bar's own Clear covers only its last rendering's
		// width, and a longer earlier one (a step's rate before a Reset) would stay on the screen.
		eraseLine := func() { fmt.Fprint(w, "\r\x1b[2K") }
		defer func() {
			if bar != nil {
				_ = bar.Exit()
				_ = bar.Clear()
				eraseLine()
			}
		}()
		step, last, stepStart := 1, 0.0, started
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			if time.Since(started) < delay {
				continue
			}
			p := -1.0
			if poll != nil {
				p = poll()
			}
			// DuckDB reports nothing (-1), or 0 for sources it cannot measure and at a statement's start: a
			// spinner, until it reports a percentage.
			if bar == nil || (spinning && p > 0) {
				if bar != nil {
					_ = bar.Clear()
				}
				spinning = p <= 0
				bar = newBar(w, desc, spinning)
			}
			if spinning {
				_ = bar.Add(1)
				continue
			}
			if p < 0 {
				continue
			}
			if p+5 < last { // a new statement
				step++
				stepStart = time.Now()
				bar.Reset()
				eraseLine()
			}
			last = p
			// Set first: Describe draws the bar, which then shows this percentage, not the last one.
			_ = bar.Set(int(p))
			bar.Describe(barDetail(desc, step, p, total, time.Since(stepStart)))
		}
	}()
	return func() {
		close(quit)
		<-ended
	}
}

// newBar makes a bar of percentages, or a spinner with the elapsed time.
func newBar(w io.Writer, desc string, spinner bool) *progressbar.ProgressBar {
	max := int64(100)
	if spinner {
		max = -1
	}
	bar := progressbar.NewOptions64(max, progressbar.OptionSetWriter(w), progressbar.OptionSetWidth(30),
		progressbar.OptionSetDescription(desc), progressbar.OptionSetElapsedTime(true), progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSpinnerType(14), progressbar.OptionThrottle(0), progressbar.OptionSetSpinnerChangeInterval(0))
	_ = bar.RenderBlank()
	return bar
}

// barDetail is the text after the bar: what runs, the step, and with a known total the rows done of it and
// their rate.
func barDetail(desc string, step int, pct float64, total int64, elapsed time.Duration) string {
	s := desc
	if step > 1 {
		s += fmt.Sprintf(" (step %d)", step)
	}
	if total <= 0 {
		return s
	}
	done := int64(pct / 100 * float64(total))
	s += fmt.Sprintf(": %s of ~%s rows", humanCount(done), humanCount(total))
	if secs := elapsed.Seconds(); secs > 0.2 {
		s += fmt.Sprintf(", %s rows/s", humanCount(int64(float64(done)/secs)))
	}
	return s
}

// humanCount writes n with a k, M or G suffix and three significant digits.
func humanCount(n int64) string {
	f := float64(n)
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if f >= u.div {
			v := f / u.div
			switch {
			case v >= 100:
				return fmt.Sprintf("%.0f%s", v, u.suffix)
			case v >= 10:
				return fmt.Sprintf("%.1f%s", v, u.suffix)
			}
			return fmt.Sprintf("%.2f%s", v, u.suffix)
		}
	}
	return fmt.Sprint(n)
}

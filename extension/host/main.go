// Command host is a plain DuckDB client on duckdb-go (database/sql, DuckDB linked statically; no sqlnb code):
// the Go counterpart of extension/itest/testdata/chost.c. It opens a database with allow_unsigned_extensions
// and runs each argument as one statement on one connection. For each it prints "== N", then "error:
// <message>" or one line per row, values tab-separated, NULL as \N (a value as duckdb-go returns it, printed
// with fmt: give text columns where the exact rendering matters).
//
// Its DuckDB is the one of the module file it is built with: go.mod (DuckDB 2.0) or go.duckdb15.mod (1.5.6).
// make extension-slots loads the probe extension in it (extension/gen) and make test-integration loads
// sqlnb in both builds (extension/itest).
//
// Usage: host [-repeat N] DBPATH SQL...
//
// With -repeat, each statement runs N times, "== N" is followed by the best time in milliseconds, and the
// peak resident memory is printed to standard error at the end ("peak_rss_kib N").
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repeat := fs.Int("repeat", 0, "run each statement N times and print the best time")
	if err := fs.Parse(args); err != nil || fs.NArg() < 1 {
		fmt.Fprintln(stderr, "usage: host [-repeat N] DBPATH SQL...")
		return 2
	}
	ctx := context.Background()
	db, err := sql.Open("duckdb", fs.Arg(0)+"?allow_unsigned_extensions=true")
	if err != nil {
		fmt.Fprintf(stderr, "host: open %s: %v\n", fs.Arg(0), err)
		return 1
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "host: connect: %v\n", err)
		return 1
	}
	defer conn.Close()
	for i, q := range fs.Args()[1:] {
		var out strings.Builder
		best := time.Duration(math.MaxInt64)
		for range max(*repeat, 1) {
			out.Reset()
			start := time.Now()
			runOne(ctx, conn, q, &out)
			best = min(best, time.Since(start))
		}
		if *repeat > 0 {
			fmt.Fprintf(stdout, "== %d %.3f\n%s", i, float64(best)/1e6, out.String())
		} else {
			fmt.Fprintf(stdout, "== %d\n%s", i, out.String())
		}
	}
	if *repeat > 0 {
		fmt.Fprintf(stderr, "peak_rss_kib %d\n", peakRSS())
	}
	return 0
}

// peakRSS is the process's peak resident memory in KiB (VmHWM), 0 if unknown. Not getrusage: its ru_maxrss
// keeps the peak of the process that started this one (Linux carries it across fork and exec).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// runOne runs q and writes its rows, or "error: " and the message on one line.
func runOne(ctx context.Context, conn *sql.Conn, q string, out *strings.Builder) {
	fail := func(err error) {
		out.Reset()
		out.WriteString("error: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n")
	}
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		fail(err)
		return
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		fail(err)
		return
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			fail(err)
			return
		}
		for i, v := range vals {
			if i > 0 {
				out.WriteByte('\t')
			}
			if v == nil {
				out.WriteString(`\N`)
			} else {
				fmt.Fprint(out, v)
			}
		}
		out.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		fail(err)
	}
}

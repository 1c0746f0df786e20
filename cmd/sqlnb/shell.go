package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/udf"
)

const shellHelp = `Statements end with ';' and may span lines. Ctrl-C cancels a running query (or clears the
current input); Ctrl-D or .quit leaves.
.help                 this text
.tables               list tables and views
.schema [NAME]        CREATE statements (of one table or view)
.models               list the nb models (FROM nb_models())
.mode MODE            result format: table, csv, json, line or markdown
.read FILE            run the statements in FILE
.output [FILE]        write results to FILE (no FILE: back to the terminal)
.timer on|off         print how long each statement took
.quit                 leave (also .exit)
`

type shell struct {
	e           *env
	db          *udf.DB
	conn        *sql.Conn
	mode        string
	out         io.Writer
	outFile     *os.File
	timer       bool
	interactive bool
	progress    func() float64
}

func newShellCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "shell [DB]",
		Short: "Interactive SQL shell with every nb_* function (runs a script when stdin is not a terminal)",
		Long: `An interactive DuckDB SQL shell on DB (default --db) with nb_train, nb_predict and every other nb_* function:
line editing, persistent history (~/.sqlnb_history, or $SQLNB_HISTORY), multi-line statements ending at ';',
aligned results with column types and row counts, dot commands (.help). Ctrl-C cancels the running query.
With stdin not a terminal (sqlnb shell db < script.sql) it runs the script, prints the results and exits
with status 1 at the first error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				e.db = args[0]
			}
			return runShell(e)
		},
	}
}

func runShell(e *env) error {
	db, err := e.open()
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	sh := &shell{e: e, db: db, conn: conn, mode: "table", out: e.stdout}
	defer sh.closeOutput()
	f, isFile := e.stdin.(*os.File)
	sh.interactive = isFile && readline.IsTerminal(int(f.Fd()))
	if !sh.interactive {
		return sh.runScript(e.stdin, true)
	}
	if _, err := conn.ExecContext(context.Background(), "SET enable_progress_bar = true; SET enable_progress_bar_print = false"); err == nil {
		sh.progress, _ = udf.Progress(conn)
	}
	return sh.repl()
}

func historyPath() string {
	if p := os.Getenv("SQLNB_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".sqlnb_history")
}

func (sh *shell) repl() error {
	rl, err := readline.NewEx(&readline.Config{
		Prompt: "sqlnb> ", HistoryFile: historyPath(), DisableAutoSaveHistory: true,
		InterruptPrompt: "^C", EOFPrompt: ".quit", Stdout: sh.e.stdout, Stderr: sh.e.stderr,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	fmt.Fprintf(sh.e.stdout, "sqlnb shell on %s — .help for commands, statements end with ';'\n", sh.e.db)
	var buf strings.Builder
	for {
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset()
			rl.SetPrompt("sqlnb> ")
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			return nil
		}
		if buf.Len() == 0 && strings.HasPrefix(strings.TrimSpace(line), ".") {
			_ = rl.SaveHistory(line)
			quit, err := sh.dot(strings.TrimSpace(line))
			if err != nil {
				fmt.Fprintln(sh.e.stderr, "Error:", err)
			}
			if quit {
				return nil
			}
			continue
		}
		buf.WriteString(line)
		buf.WriteString("\n")
		stmts, rest := splitStatements(buf.String())
		for _, s := range stmts {
			_ = rl.SaveHistory(s)
			if err := sh.exec(s); err != nil {
				fmt.Fprintln(sh.e.stderr, "Error:", err)
			}
		}
		buf.Reset()
		if !onlyComments(rest) {
			buf.WriteString(rest)
			rl.SetPrompt("   ...> ")
		} else {
			rl.SetPrompt("sqlnb> ")
		}
	}
}

// runScript runs the statements and dot commands of r; stopOnError makes the first error fatal.
func (sh *shell) runScript(r io.Reader, stopOnError bool) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var buf strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if onlyComments(buf.String()) && strings.HasPrefix(strings.TrimSpace(line), ".") {
			buf.Reset()
			quit, err := sh.dot(strings.TrimSpace(line))
			if err != nil {
				if stopOnError {
					return err
				}
				fmt.Fprintln(sh.e.stderr, "Error:", err)
			}
			if quit {
				return nil
			}
			continue
		}
		buf.WriteString(line)
		stmts, rest := splitStatements(buf.String())
		for _, s := range stmts {
			if err := sh.exec(s); err != nil {
				if stopOnError {
					return err
				}
				fmt.Fprintln(sh.e.stderr, "Error:", err)
			}
		}
		buf.Reset()
		buf.WriteString(rest)
	}
	if rest := buf.String(); !onlyComments(rest) {
		return sh.exec(rest)
	}
	return nil
}

// exec runs one statement and prints its result. Ctrl-C interrupts it (DuckDB's interrupt, through the
// context); on a terminal a progress bar shows once it has run for half a second.
func (sh *shell) exec(stmt string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sh.watch(done, sigs, cancel)
	}()
	start := time.Now()
	names, types, data, err := sh.query(ctx, stmt)
	close(done)
	wg.Wait()
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("query interrupted (Ctrl-C)")
		}
		return err
	}
	if len(names) > 0 {
		if err := writeResult(sh.out, sh.mode, names, types, data); err != nil {
			return err
		}
	}
	if sh.timer {
		fmt.Fprintf(sh.e.stderr, "Run Time: %.3fs\n", time.Since(start).Seconds())
	}
	return nil
}

// watch cancels on Ctrl-C and, on a terminal, draws a progress bar once the query has run for half a
// second: a percentage when DuckDB knows it (table scans), else a spinner with the elapsed time.
func (sh *shell) watch(done <-chan struct{}, sigs <-chan os.Signal, cancel func()) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	started := time.Now()
	var bar *progressbar.ProgressBar
	defer func() {
		if bar != nil {
			_ = bar.Exit() // stops the spinner's own redraws
			_ = bar.Clear()
		}
	}()
	for {
		select {
		case <-done:
			return
		case <-sigs:
			cancel()
		case <-tick.C:
			if !sh.interactive || time.Since(started) < 500*time.Millisecond {
				continue
			}
			p := -1.0
			if sh.progress != nil {
				p = sh.progress()
			}
			if bar == nil {
				max := int64(100)
				if p <= 0 {
					max = -1 // DuckDB reports nothing (-1) or 0 for sources it cannot measure: a spinner
				}
				bar = progressbar.NewOptions64(max, progressbar.OptionSetWriter(sh.e.stderr), progressbar.OptionSetWidth(40),
					progressbar.OptionSetDescription("running"), progressbar.OptionShowElapsedTimeOnFinish(),
					progressbar.OptionSetElapsedTime(true), progressbar.OptionSpinnerType(14), progressbar.OptionThrottle(0))
				_ = bar.RenderBlank()
			}
			if p >= 0 && bar.GetMax64() > 0 {
				_ = bar.Set(int(p))
			} else {
				_ = bar.Add(1)
			}
		}
	}
}

func (sh *shell) query(ctx context.Context, stmt string) ([]string, []string, [][]any, error) {
	rows, err := sh.conn.QueryContext(ctx, stmt)
	if err != nil {
		return nil, nil, nil, err
	}
	return readRows(rows)
}

// dot runs a dot command; quit asks the shell to end.
func (sh *shell) dot(line string) (quit bool, err error) {
	fields := strings.Fields(line)
	arg := strings.TrimSpace(strings.TrimPrefix(line, fields[0]))
	switch fields[0] {
	case ".quit", ".exit", ".q":
		return true, nil
	case ".help":
		fmt.Fprint(sh.out, shellHelp)
	case ".tables":
		return false, sh.exec(`SELECT schema_name AS schema, table_name AS name, 'table' AS type FROM duckdb_tables() WHERE NOT internal
			UNION ALL SELECT schema_name, view_name, 'view' FROM duckdb_views() WHERE NOT internal ORDER BY ALL`)
	case ".schema":
		filter := ""
		if arg != "" {
			filter = " WHERE name = " + queries.Literal(arg)
		}
		_, _, data, err := sh.query(context.Background(), `SELECT sql FROM (
			SELECT table_name AS name, sql FROM duckdb_tables() WHERE NOT internal
			UNION ALL SELECT view_name, sql FROM duckdb_views() WHERE NOT internal)`+filter+` ORDER BY name`)
		if err != nil {
			return false, err
		}
		for _, r := range data {
			fmt.Fprintln(sh.out, formatValue(r[0]))
		}
	case ".models":
		return false, sh.exec("SELECT name, label, n_rows, classes, features, kinds, alpha, var_smoothing, variance, priors FROM nb_models()")
	case ".mode":
		switch arg {
		case "table", "csv", "json", "line", "markdown":
			sh.mode = arg
		default:
			return false, fmt.Errorf(".mode %q: use table, csv, json, line or markdown", arg)
		}
	case ".read":
		f, err := os.Open(arg)
		if err != nil {
			return false, err
		}
		defer f.Close()
		return false, sh.runScript(f, !sh.interactive)
	case ".output":
		sh.closeOutput()
		if arg != "" {
			f, err := os.Create(arg)
			if err != nil {
				return false, err
			}
			sh.outFile, sh.out = f, f
		}
	case ".timer":
		switch arg {
		case "on":
			sh.timer = true
		case "off":
			sh.timer = false
		default:
			return false, fmt.Errorf(".timer %q: use on or off", arg)
		}
	default:
		return false, fmt.Errorf("unknown dot command %s: .help lists the commands", fields[0])
	}
	return false, nil
}

func (sh *shell) closeOutput() {
	if sh.outFile != nil {
		sh.outFile.Close()
		sh.outFile = nil
	}
	sh.out = sh.e.stdout
}

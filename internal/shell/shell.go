package shell

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/internal/output"
	"github.com/sqlnb/sqlnb/internal/progress"
	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"
)

// Config is what the shell takes from the command that runs it.
type Config struct {
	// Stdin is read line by line: with line editing, history and Tab when it is a terminal, else as a
	// script that ends at its first error.
	Stdin io.Reader
	// Stdout gets the results (until .output names a file); Stderr errors, progress and messages.
	Stdout, Stderr io.Writer
	// DB is the database the shell opens first: a file, ":memory:", with ?options.
	DB string
	// Open opens a database, DB and each of .open, with the nb_* functions registered (and the command's
	// settings applied). Its errors are the shell's.
	Open func(dsn string) (*udf.DB, error)
	// MaxRows is the most rows a table shows until .maxrows changes it (0: all).
	MaxRows int
	// Notice is where a table written to something other than a terminal says it left rows out (nil:
	// nowhere).
	Notice io.Writer
}

// shell is `sqlnb shell`: one connection of the database it has open, and the settings its dot commands change.
type shell struct {
	cfg         Config
	dsn         string // the database open
	db          *udf.DB
	conn        *sql.Conn
	parser      sqltext.Splitter
	mode        string
	maxRows     int
	out         io.Writer
	outFile     *os.File
	timer       bool
	interactive bool
	progress    func() float64
	cache       *catalogCache
}

// Run runs the shell on cfg.DB until the input ends or .quit: interactively when cfg.Stdin is a terminal,
// else as a script whose first error ends it (and is returned).
func Run(cfg Config) error {
	f, isFile := cfg.Stdin.(*os.File)
	sh := &shell{cfg: cfg, mode: "table", maxRows: cfg.MaxRows, out: cfg.Stdout, cache: &catalogCache{}}
	sh.interactive = isFile && readline.IsTerminal(int(f.Fd()))
	if err := sh.open(cfg.DB); err != nil {
		return err
	}
	defer sh.close()
	defer sh.closeOutput()
	if !sh.interactive {
		return sh.runScript(cfg.Stdin, true)
	}
	return sh.repl()
}

// open opens the database dsn with the nb_* functions and makes it the shell's (.open); the database open
// until then is closed. On an error the shell stays on the database it had.
func (sh *shell) open(dsn string) error {
	ctx := context.Background()
	db, err := sh.cfg.Open(dsn) // with the settings, and a lock held elsewhere said plainly
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		var parse func(string) (int, error)
		if parse, err = udf.Parser(conn); err == nil {
			sh.close()
			sh.db, sh.conn, sh.parser, sh.dsn = db, conn, sqltext.Splitter{Count: parse, Rules: udf.Lexer()}, dsn
			sh.progress = nil
			if sh.interactive {
				sh.progress, _ = progress.Enable(ctx, conn)
			}
			sh.cache.setLoader(func() *catalog { return loadCatalog(ctx, conn) })
			return nil
		}
		conn.Close()
	}
	db.Close()
	return err
}

func (sh *shell) close() {
	if sh.conn != nil {
		sh.conn.Close()
		sh.db.Close()
		sh.conn, sh.db = nil, nil
	}
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

const (
	prompt     = "sqlnb> "
	contPrompt = "   ...> "
)

func (sh *shell) repl() error {
	hist := loadHistory(historyPath())
	// readline keeps the history in memory only: its own file would split an entry at its line breaks.
	rl, err := readline.NewEx(&readline.Config{
		Prompt: prompt, HistoryLimit: historyLimit, DisableAutoSaveHistory: true,
		AutoComplete: shellCompleter{sh.cache}, InterruptPrompt: "^C", EOFPrompt: ".quit",
		Stdout: sh.cfg.Stdout, Stderr: sh.cfg.Stderr,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	for _, entry := range hist.entries {
		_ = rl.SaveHistory(entry)
	}
	fmt.Fprintf(sh.cfg.Stdout, "sqlnb shell on %s — .help for commands, statements end with ';'\n", sh.dsn)
	var buf strings.Builder
	for {
		sh.cache.setInStatement(buf.Len() > 0)
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset()
			rl.SetPrompt(prompt)
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			return nil
		}
		st := sh.feed(&buf, line)
		if st.entry != "" {
			hist.add(st.entry)
			_ = rl.SaveHistory(st.entry)
		}
		if quit, _ := sh.do(st, false); quit {
			return nil
		}
		if st.pending {
			rl.SetPrompt(contPrompt)
		} else {
			rl.SetPrompt(prompt)
		}
	}
}

// step is what one line of input makes the shell do.
type step struct {
	dot     string   // a dot command to run
	stmts   []string // statements to run, in order
	err     error    // the input is complete but DuckDB cannot parse it
	entry   string   // the history entry: a dot command, or the whole input of its statements
	pending bool     // the input goes on on the next line
}

// feed adds line to the input in buf. A line starting with '.' outside a statement is a dot command;
// empty and -- comment lines outside a statement are skipped; other lines collect in buf until DuckDB's
// parser says the input is complete (sqlParser.split).
func (sh *shell) feed(buf *strings.Builder, line string) step {
	if buf.Len() == 0 {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, ".") {
			return step{dot: t, entry: t}
		}
		if t == "" || strings.HasPrefix(t, "--") && !strings.ContainsAny(t, "\n\r") {
			return step{}
		}
	}
	buf.WriteString(line)
	buf.WriteString("\n")
	if !sqltext.MayComplete(line) {
		return step{pending: true}
	}
	stmts, complete, err := sh.parser.Split(buf.String())
	if !complete {
		return step{pending: true}
	}
	st := step{stmts: stmts, err: err}
	if len(stmts) > 0 || err != nil {
		st.entry = strings.TrimSpace(buf.String())
	}
	buf.Reset()
	return st
}

// do runs a step: its dot command or its statements. An error ends a script that stops on errors (it is
// returned); otherwise it is printed and the shell goes on.
func (sh *shell) do(st step, stopOnError bool) (quit bool, err error) {
	report := func(err error) error {
		if stopOnError {
			return err
		}
		fmt.Fprintln(sh.cfg.Stderr, "Error:", err)
		return nil
	}
	switch {
	case st.dot != "":
		quit, err := sh.dot(st.dot)
		if err != nil {
			return quit, report(err)
		}
		return quit, nil
	case st.err != nil:
		return false, report(st.err)
	}
	for _, s := range st.stmts {
		if err := sh.exec(s); err != nil {
			if err := report(err); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// runScript runs the statements and dot commands of r as they complete, line by line; stopOnError makes
// the first error fatal. A last statement may lack its ';'.
func (sh *shell) runScript(r io.Reader, stopOnError bool) error {
	br := bufio.NewReader(r)
	var buf strings.Builder
	for {
		line, readErr := br.ReadString('\n')
		if line == "" && readErr != nil {
			break
		}
		st := sh.feed(&buf, strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
		if quit, err := sh.do(st, stopOnError); quit || err != nil {
			return err
		}
		if readErr != nil {
			break
		}
	}
	if buf.Len() == 0 {
		return nil
	}
	rest := buf.String()
	st := sh.feed(&buf, ";")
	if st.pending { // ends inside a string or comment: DuckDB's parse error says where
		st = step{err: errors.New("incomplete statement at the end of the input")}
		if _, err := sh.parser.Count(rest); err != nil {
			st.err = err
		}
	}
	_, err := sh.do(st, stopOnError)
	return err
}

// exec runs one statement and prints its result, row by row. Ctrl-C interrupts it (DuckDB's interrupt,
// through the context).
func (sh *shell) exec(stmt string) error {
	if changesCatalog(stmt) {
		defer sh.cache.invalidate()
	}
	start := time.Now()
	err := sh.interruptible(func(ctx context.Context, queryDone func()) error {
		rows, err := sh.conn.QueryContext(ctx, stmt)
		queryDone()
		if err != nil {
			return output.NoParameterValues(err, "the shell")
		}
		if cols, err := rows.Columns(); err != nil || len(cols) == 0 || output.Quiet(stmt, cols) {
			rows.Close()
			return err
		}
		return output.WriteRows(sh.out, rows, output.Options{Format: sh.mode, MaxRows: sh.maxRows, Notice: sh.cfg.Notice})
	})
	if err == nil && sh.timer {
		fmt.Fprintf(sh.cfg.Stderr, "Run Time: %.3fs\n", time.Since(start).Seconds())
	}
	return err
}

// interruptible runs f with a context that Ctrl-C cancels. On a terminal a progress bar shows once f has
// run for half a second, until f calls queryDone (DuckDB has the result; printing it is not shown) or
// returns.
func (sh *shell) interruptible(f func(ctx context.Context, queryDone func()) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-finished:
		}
	}()
	var once sync.Once
	stop := sh.startProgress()
	queryDone := func() { once.Do(stop) }
	err := f(ctx, queryDone)
	queryDone()
	if err != nil && ctx.Err() != nil {
		return errors.New("query interrupted (Ctrl-C)")
	}
	return err
}

// startProgress draws a progress bar on stderr (a terminal only) from half a second on (startBar): a
// percentage when DuckDB knows it (table scans), else a spinner with the elapsed time. stop erases it.
func (sh *shell) startProgress() (stop func()) {
	if !sh.interactive {
		return func() {}
	}
	return progress.Start(sh.cfg.Stderr, "running", sh.progress, 0, progress.Delay)
}

// queryAll runs stmt and returns its rows (for dot commands with small results).
func (sh *shell) queryAll(ctx context.Context, stmt string, args ...any) ([][]any, error) {
	rows, err := sh.conn.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	_, _, data, err := output.ReadRows(rows)
	return data, err
}

func shellHelp() string {
	var b strings.Builder
	b.WriteString(`Statements end with ';' and may span lines; Tab completes keywords, names, models and files.
Ctrl-C cancels a running query (or clears the current input); Ctrl-D or .quit leaves.
`)
	for _, d := range dotCommands {
		fmt.Fprintf(&b, "%-22s%s\n", strings.TrimSpace(d.name+" "+d.args), d.help)
	}
	return b.String()
}

// dot runs a dot command; quit asks the shell to end.
func (sh *shell) dot(line string) (quit bool, err error) {
	fields := strings.Fields(line)
	arg := strings.TrimSpace(strings.TrimPrefix(line, fields[0]))
	switch fields[0] {
	case ".quit", ".exit", ".q":
		return true, nil
	case ".help":
		fmt.Fprint(sh.out, shellHelp())
	case ".tables":
		return false, sh.exec(`SELECT schema_name AS schema, table_name AS name, 'table' AS type FROM duckdb_tables() WHERE NOT internal
			UNION ALL SELECT schema_name, view_name, 'view' FROM duckdb_views() WHERE NOT internal ORDER BY ALL`)
	case ".schema":
		var schema, name any // NULL: any
		if arg != "" {
			args, err := dotArgs(arg)
			if err != nil {
				return false, fmt.Errorf(".schema %s: %w", arg, err)
			}
			if len(args) != 1 {
				return false, fmt.Errorf(`.schema %s: give one table or view (quote a name with spaces: "my table")`, arg)
			}
			s, n, err := tableArg(args[0])
			if err != nil {
				return false, fmt.Errorf(".schema %s: %w", arg, err)
			}
			name = n
			if s != "" {
				schema = s
			}
		}
		// Names match without regard to case, as DuckDB resolves them; when some differ only by case, the
		// exact ones.
		data, err := sh.queryAll(context.Background(), `WITH m AS (
			SELECT sql, name = $1 AND schema = coalesce($2, schema) AS exact FROM (
				SELECT schema_name AS schema, table_name AS name, sql FROM duckdb_tables() WHERE NOT internal
				UNION ALL SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal)
			WHERE lower(name) = lower(coalesce($1, name)) AND lower(schema) = lower(coalesce($2, schema)))
			SELECT sql FROM m WHERE exact IS NOT FALSE OR NOT EXISTS (FROM m WHERE exact) ORDER BY ALL`, name, schema)
		if err != nil {
			return false, err
		}
		for _, r := range data {
			fmt.Fprintln(sh.out, output.FormatValue(r[0]))
		}
	case ".models":
		return false, sh.exec("SELECT name, label, n_rows, classes, features, kinds, alpha, var_smoothing, variance, priors FROM nb_models()")
	case ".mode":
		if !slices.Contains(output.Formats, arg) {
			return false, fmt.Errorf(".mode %q: use table, csv, json, line or markdown", arg)
		}
		sh.mode = arg
	case ".maxrows":
		if arg == "" {
			fmt.Fprintln(sh.out, sh.maxRows)
			return false, nil
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return false, fmt.Errorf(".maxrows %q: give a number of rows (0: all)", arg)
		}
		sh.maxRows = n
	case ".open":
		if arg == "" {
			arg = ":memory:"
		}
		return false, sh.open(unquoteArg(arg))
	case ".import":
		args, err := dotArgs(arg)
		if err != nil {
			return false, fmt.Errorf(".import %s: %w", arg, err)
		}
		if len(args) != 2 {
			return false, errors.New(`.import FILE TABLE: give a file and a table (quote a name with spaces: 'my file.csv' "my table")`)
		}
		return false, sh.importFile(unquoteArg(args[0]), args[1])
	case ".read":
		f, err := os.Open(unquoteArg(arg))
		if err != nil {
			return false, err
		}
		defer f.Close()
		defer sh.cache.invalidate()
		return false, sh.runScript(f, !sh.interactive)
	case ".output":
		sh.closeOutput()
		if arg != "" {
			if outfile.IsDuckDB(unquoteArg(arg)) {
				return false, fmt.Errorf(".output %s: it is a DuckDB database, which the output would overwrite: give another file", arg)
			}
			f, err := os.Create(unquoteArg(arg))
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

// unquoteArg strips one pair of quotes ('...' or "...") from a dot command's file argument; that quote
// doubled inside stands for one.
func unquoteArg(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		q := s[:1]
		return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
	}
	return s
}

// dotArgs splits a dot command's arguments at spaces outside quotes, as the DuckDB CLI does: a file may be
// written as 'my file.csv' and a table as "my table" or main."my table" (a doubled quote inside stands for
// one). The arguments keep their quotes (unquoteArg, tableArg).
func dotArgs(s string) ([]string, error) {
	var args []string
	var quote byte
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		case c == ' ' || c == '\t':
			if start >= 0 {
				args = append(args, s[start:i])
				start = -1
			}
			continue
		case c == '\'' || c == '"':
			quote = c
		}
		if start < 0 {
			start = i
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("a %c quote is not closed", quote)
	}
	if start >= 0 {
		args = append(args, s[start:])
	}
	return args, nil
}

// tableArg reads a dot command's table argument: NAME or SCHEMA.NAME, each part bare or double-quoted
// ("my table", "a.b", "say ""hi"""); schema is "" when not given.
func tableArg(s string) (schema, name string, err error) {
	var parts []string
	start, quoted := 0, false
	for i := 0; i <= len(s); i++ {
		switch {
		case i < len(s) && s[i] == '"':
			quoted = !quoted
		case i == len(s) || s[i] == '.' && !quoted:
			p := s[start:i]
			bare := !strings.HasPrefix(p, `"`)
			if bare && strings.ContainsAny(p, `"'`) || !bare && (len(p) < 2 || !strings.HasSuffix(p, `"`) ||
				strings.Contains(strings.ReplaceAll(p[1:len(p)-1], `""`, ""), `"`)) {
				return "", "", fmt.Errorf(`table %s: write a name with quotes, spaces or dots in double quotes: "my table", main."a.b"`, s)
			}
			if p = unquoteArg(p); p == "" {
				return "", "", fmt.Errorf("table %s: empty name", s)
			}
			parts = append(parts, p)
			start = i + 1
		}
	}
	switch len(parts) {
	case 1:
		return "", parts[0], nil
	case 2:
		return parts[0], parts[1], nil
	}
	return "", "", fmt.Errorf(`table %s: give NAME or SCHEMA.NAME (a name with dots is written in double quotes: "a.b")`, s)
}

// importFile loads file into table with DuckDB's reader for its extension (.csv, .tsv, .parquet, .json,
// ...; see nb.ResolveSource): the rows are appended when the table exists (by column position, as the
// DuckDB CLI's .import does), else the table is created from the file.
func (sh *shell) importFile(file, table string) error {
	ctx := context.Background()
	schema, name, err := tableArg(table)
	if err != nil {
		return fmt.Errorf(".import %q: %w", file, err)
	}
	src, err := nb.ResolveSource(ctx, sh.conn, file)
	if err != nil || !strings.HasPrefix(src.From, "read_") {
		return fmt.Errorf(".import %q: not a file DuckDB reads: use .csv, .tsv, .parquet, .json, .jsonl or .ndjson (also .gz or .zst)", file)
	}
	target := queries.Ident(name)
	if schema != "" {
		target = queries.Ident(schema) + "." + target
	}
	data, err := sh.queryAll(ctx, `SELECT count(*) FROM duckdb_tables() WHERE NOT internal
		AND lower(table_name) = lower($1) AND ($2 = '' OR lower(schema_name) = lower($2))`, name, schema)
	if err != nil {
		return err
	}
	exists := data[0][0].(int64) > 0
	stmt := "CREATE TABLE " + target + " AS SELECT * FROM " + src.From
	if exists {
		stmt = "INSERT INTO " + target + " BY NAME SELECT * FROM " + src.From // the file's columns by name, in any order
	}
	defer sh.cache.invalidate()
	return sh.interruptible(func(ctx context.Context, _ func()) error {
		res, err := sh.conn.ExecContext(ctx, stmt, src.Args...)
		if err != nil {
			return fmt.Errorf(".import %q into %s: %w", file, table, err)
		}
		n, _ := res.RowsAffected()
		verb := "appended to"
		if !exists { // CREATE TABLE AS reports no row count
			verb = "created"
			if err := sh.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+target).Scan(&n); err != nil {
				return err
			}
		}
		fmt.Fprintf(sh.cfg.Stderr, "%s %s: %d row%s from %s\n", verb, table, n, output.Plural(n), file)
		return nil
	})
}

func (sh *shell) closeOutput() {
	if sh.outFile != nil {
		sh.outFile.Close()
		sh.outFile = nil
	}
	sh.out = sh.cfg.Stdout
}

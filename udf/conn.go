package udf

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/queries"
)

// conn is a connection of a database opened by Open: a duckdb-go connection that knows whether an explicit
// transaction is open on it — BEGIN … COMMIT as SQL text or database/sql's BeginTx — so that the nb_*
// functions that store or drop models (they work on sqlnb's own connection, outside the caller's
// transaction) refuse to run inside one, and that rejects named arguments of the scoring functions, which
// DuckDB would bind by position.
type conn struct {
	*duckdb.Conn
	state  *connState
	reg    *registry
	closed func() // forgets the connection in its registry
}

// Close closes the connection.
func (c *conn) Close() error {
	c.closed()
	return c.Conn.Close()
}

// connState is what the registry knows of one connection.
type connState struct {
	mu  sync.Mutex
	tx  bool            // an explicit transaction is open
	ctx context.Context // the context of the statement running (or last run) on the connection
	// txStart is the tick (versions.go) at which the explicit transaction began, stmtStart the one at which
	// the statement running began (0: none): versions replaced after them are kept for them.
	txStart, stmtStart uint64
}

// openSince returns the tick at which the transaction the connection has open began: its explicit
// transaction's, else its running statement's (0: none).
func (st *connState) openSince() uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.tx {
		return st.txStart
	}
	return st.stmtStart
}

// running records ctx as the context of the statement that starts on the connection: the nb_* table
// functions it calls do their work on sqlnb's own connection under it, so that cancelling the statement
// (Ctrl-C, a deadline) stops that work and rolls it back instead of letting it commit. It returns the
// function to call when the statement has been bound and runs (DuckDB binds every function call of a
// statement before it returns a result): the versions kept for it may go.
func (c *conn) running(ctx context.Context) (bound func()) {
	t := ticks.Add(1)
	c.state.mu.Lock()
	c.state.ctx = ctx
	c.state.stmtStart = t
	c.state.mu.Unlock()
	return func() {
		c.state.mu.Lock()
		c.state.stmtStart = 0
		c.state.mu.Unlock()
		c.reg.prune()
	}
}

// Unwrap returns the duckdb-go connection.
func (c *conn) Unwrap() driver.Conn { return c.Conn }

func (c *conn) inTx() bool {
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	return c.state.tx
}

// setTx records whether an explicit transaction is open, and when it began; when one ends, the versions
// kept for it may go.
func (c *conn) setTx(v bool) {
	c.state.mu.Lock()
	was := c.state.tx
	c.state.tx = v
	if v && !was {
		c.state.txStart = ticks.Add(1)
	}
	if !v {
		c.state.txStart = 0
	}
	c.state.mu.Unlock()
	if was && !v {
		c.reg.prune()
	}
}

// BeginTx starts an explicit transaction (database/sql's Tx).
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	t, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.setTx(true)
	return &tx{Tx: t, c: c}, nil
}

// Begin starts an explicit transaction.
func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

type tx struct {
	driver.Tx
	c *conn
}

func (t *tx) Commit() error   { defer t.c.setTx(false); return t.Tx.Commit() }
func (t *tx) Rollback() error { defer t.c.setTx(false); return t.Tx.Rollback() }

// ExecContext runs query after the transaction and named-argument checks (see plan).
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	done, err := c.plan(query)
	if err != nil {
		return nil, err
	}
	bound := c.running(ctx)
	res, err := c.Conn.ExecContext(ctx, query, args)
	done(err)
	bound()
	return res, err
}

// QueryContext runs query after the transaction and named-argument checks (see plan).
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	done, err := c.plan(query)
	if err != nil {
		return nil, err
	}
	bound := c.running(ctx)
	rows, err := c.Conn.QueryContext(ctx, query, args)
	done(err)
	bound()
	return rows, err
}

// PrepareContext prepares query after the named-argument check.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := checkNamedArguments(query); err != nil {
		return nil, err
	}
	st, err := c.Conn.PrepareContext(ctx, query)
	if ds, ok := st.(*duckdb.Stmt); ok && err == nil {
		return &stmt{Stmt: ds, c: c}, nil
	}
	return st, err
}

// stmt is a prepared statement of a conn: its executions record their context as the connection's
// statements do (conn.running), so that an nb_* table function it calls works under it, and not under
// the context of whatever ran on the connection before.
type stmt struct {
	*duckdb.Stmt
	c *conn
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	defer s.c.running(ctx)()
	return s.Stmt.ExecContext(ctx, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	defer s.c.running(ctx)()
	return s.Stmt.QueryContext(ctx, args)
}

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	defer s.c.running(context.Background())()
	return s.Stmt.Exec(args)
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	defer s.c.running(context.Background())()
	return s.Stmt.Query(args)
}

// Prepare prepares query after the named-argument check.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// writers are the nb_* functions that change the model store on sqlnb's own connection.
var writers = map[string]bool{"nb_train": true, "nb_drop": true, "nb_set": true, "nb_import": true, "nb_forget": true, "nb_merge": true}

// plan looks at the statements of query (statementStarts): it sets the connection's transaction state that
// its nb_* writers will see and returns the function that sets the state after the statements ran. A
// transaction statement (BEGIN, START, COMMIT, END, ROLLBACK, ABORT) that succeeds toggles the state.
func (c *conn) plan(query string) (func(error), error) {
	if err := checkNamedArguments(query); err != nil {
		return nil, err
	}
	stmts := statementStarts(lexSQL(query))
	state, writerState, writerSeen, txStatements := c.inTx(), false, false, 0
	for _, s := range stmts {
		switch s.keyword {
		case "begin", "start":
			state = true
			txStatements++
		case "commit", "end", "rollback", "abort":
			state = false
			txStatements++
		}
		if s.writer {
			if writerSeen && writerState != state {
				return nil, errors.New("sqlnb: nb_train, nb_forget, nb_merge, nb_drop, nb_set and nb_import cannot run both inside and outside a transaction in one statement list: split it")
			}
			writerSeen, writerState = true, state
		}
	}
	if txStatements == 0 {
		return func(error) {}, nil
	}
	if writerSeen && writerState {
		return nil, errors.New("sqlnb: nb_train, nb_forget, nb_merge, nb_drop, nb_set and nb_import cannot run inside an explicit transaction: they work on " +
			"sqlnb's own connection and commit at once, so ROLLBACK could not undo them; run them after COMMIT (or before BEGIN)")
	}
	return func(err error) {
		if err == nil {
			c.setTx(state)
			return
		}
		// A failed list: ask nothing, keep the state of the first statement (DuckDB stops at the failing
		// one); a lone BEGIN that failed leaves the state as it was.
		if len(stmts) == 1 && (stmts[0].keyword == "begin" || stmts[0].keyword == "start") {
			return
		}
		if len(stmts) == 1 {
			c.setTx(false) // a COMMIT or ROLLBACK that fails still ends the transaction
		}
	}, nil
}

// statement is one statement of a text as plan sees it: its first keyword (lower case) and whether it calls
// an nb_* writer.
type statement struct {
	keyword string
	writer  bool
}

// statementStarts splits the tokens of a text (lexSQL) into statements at semicolons, for classification
// only: DuckDB itself parses and runs the text.
func statementStarts(toks iter.Seq[token]) []statement {
	var out []statement
	var prev token // the token before, in the statement; none (lexSQL yields no zero token) at its start
	for t := range toks {
		switch {
		case t.Is(";"):
			prev = token{}
			continue
		case prev == token{}: // the statement's first token
			out = append(out, statement{})
			if t.Kind == sqltext.Word {
				out[len(out)-1].keyword = strings.ToLower(t.Text)
			}
		case t.Is("(") && writers[tokenName(prev)]:
			out[len(out)-1].writer = true
		}
		prev = t
	}
	return out
}

// token is a token of SQL text: package sqltext's, blanks and comments left out (lexSQL).
type token = sqltext.Token

// lexSQL returns the tokens of text other than blanks and comments, by the rules of the DuckDB line in the
// process.
func lexSQL(text string) iter.Seq[token] { return Lexer().Significant(text) }

// tokenName returns t's name in lower case when t is an identifier, written plain or quoted, and "" otherwise:
// DuckDB looks functions up without regard to case, quoted or not.
func tokenName(t token) string { return strings.ToLower(t.Name()) }

// scoringFunctions are the nb_* functions whose arguments DuckDB binds by position.
var scoringFunctions = map[string]bool{}

func init() {
	for _, s := range scalarSpecs {
		scoringFunctions[s.name] = true
	}
}

// checkNamedArguments rejects `nb_predict('m', x := 1, ...)` and `nb_predict('m', x => 1, ...)`: DuckDB
// passes arguments to a function by position and drops their names, so named feature arguments would
// silently be matched in training order. It reads the tokens of the text (lexSQL), not a parse tree:
// DuckDB's grammar makes a named argument a name followed by := or => right after a call's ( or one of its
// commas, which the tokens show in every kind of statement — a SELECT, CREATE TABLE … AS, CREATE VIEW,
// CREATE MACRO, PREPARE, INSERT, UPDATE, DELETE, COPY (…), EXPLAIN — where json_serialize_sql, DuckDB's
// only parse tree reachable through SQL or the C API, serializes SELECT statements alone
// (FuzzNamedArgumentsAsParsed holds the two to the same answer where both apply). A text without := or =>
// has none, and is not read again.
func checkNamedArguments(query string) error {
	if !strings.Contains(query, ":=") && !strings.Contains(query, "=>") {
		return nil
	}
	name, arg, op := namedArgument(lexSQL(query))
	if name == "" {
		return nil
	}
	if slices.ContainsFunc(optionParams, func(p param) bool { return p.name == strings.ToLower(arg) }) {
		return fmt.Errorf("%s: named argument %s %s …: scoring functions take no options; %s is a hyperparameter of the "+
			"model: set it with CALL nb_set('model', %s := …) (or sqlnb models set)", name, queries.Ident(arg), op, arg, strings.ToLower(arg))
	}
	return fmt.Errorf("%s: named argument %s %s …: DuckDB passes a function's arguments by position, so the name would be "+
		"ignored; pass the features as one struct, as in %s('model', {%s: …}) or struct_pack(%s := …)", name, queries.Ident(arg), op, name, queries.Literal(arg), queries.Ident(arg))
}

// namedArgument finds the first call of a scoring function with a named argument: the function (lower
// case), the argument's name as written (unquoted) and its operator, := or =>.
func namedArgument(toks iter.Seq[token]) (function, arg, op string) {
	var calls []string   // the open brackets, innermost last: the scoring function a ( calls, else ""
	var prev, cand token // the token before; a name that starts an argument of a scoring call
	for t := range toks {
		if cand != (token{}) && (t.Is(":=") || t.Is("=>")) {
			return calls[len(calls)-1], cand.Name(), t.Text
		}
		cand = token{}
		switch {
		case t.Is("(") || t.Is("[") || t.Is("{"):
			f := ""
			if t.Is("(") && scoringFunctions[tokenName(prev)] {
				f = tokenName(prev)
			}
			calls = append(calls, f)
		case t.Is(")") || t.Is("]") || t.Is("}"):
			if len(calls) > 0 {
				calls = calls[:len(calls)-1]
			}
		case t.Kind == sqltext.Word || t.Kind == sqltext.QuotedName && !t.Open: // a name
			if len(calls) > 0 && calls[len(calls)-1] != "" && (prev.Is("(") || prev.Is(",")) {
				cand = t
			}
		}
		prev = t
	}
	return "", "", ""
}

// connID returns the DuckDB connection id of a raw connection.
func connID(raw mapping.Connection) uint64 {
	var cctx mapping.ClientContext
	mapping.ConnectionGetClientContext(raw, &cctx)
	defer mapping.DestroyClientContext(&cctx)
	return uint64(mapping.ClientContextGetConnectionId(cctx))
}

package udf

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

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
}

// running records ctx as the context of the statement that starts on the connection: the nb_* table
// functions it calls do their work on sqlnb's own connection under it, so that cancelling the statement
// (Ctrl-C, a deadline) stops that work and rolls it back instead of letting it commit.
func (c *conn) running(ctx context.Context) {
	c.state.mu.Lock()
	c.state.ctx = ctx
	c.state.mu.Unlock()
}

// Unwrap returns the duckdb-go connection.
func (c *conn) Unwrap() driver.Conn { return c.Conn }

func (c *conn) inTx() bool {
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	return c.state.tx
}

func (c *conn) setTx(v bool) {
	c.state.mu.Lock()
	c.state.tx = v
	c.state.mu.Unlock()
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
	done, err := c.plan(ctx, query)
	if err != nil {
		return nil, err
	}
	c.running(ctx)
	res, err := c.Conn.ExecContext(ctx, query, args)
	done(err)
	return res, err
}

// QueryContext runs query after the transaction and named-argument checks (see plan).
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	done, err := c.plan(ctx, query)
	if err != nil {
		return nil, err
	}
	c.running(ctx)
	rows, err := c.Conn.QueryContext(ctx, query, args)
	done(err)
	return rows, err
}

// PrepareContext prepares query after the named-argument check.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.checkNamedArguments(ctx, query); err != nil {
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
	s.c.running(ctx)
	return s.Stmt.ExecContext(ctx, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.running(ctx)
	return s.Stmt.QueryContext(ctx, args)
}

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	s.c.running(context.Background())
	return s.Stmt.Exec(args)
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	s.c.running(context.Background())
	return s.Stmt.Query(args)
}

// Prepare prepares query after the named-argument check.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// writers are the nb_* functions that change the model store on sqlnb's own connection.
var writers = regexp.MustCompile(`(?i)\bnb_(train|drop|set|import|forget|merge)\s*\(`)

// plan looks at the statements of query (statementStarts): it sets the connection's transaction state that
// its nb_* writers will see and returns the function that sets the state after the statements ran. A
// transaction statement (BEGIN, START, COMMIT, END, ROLLBACK, ABORT) that succeeds toggles the state.
func (c *conn) plan(ctx context.Context, query string) (func(error), error) {
	if err := c.checkNamedArguments(ctx, query); err != nil {
		return nil, err
	}
	stmts := statementStarts(query)
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

// statementStarts splits text into statements at semicolons outside quotes ('…' with ” and E'…' with \'
// escapes, "…", $tag$…$tag$) and comments (-- and /* */), for classification only: DuckDB itself parses
// and runs the text.
func statementStarts(text string) []statement {
	var out []statement
	var cur strings.Builder // the statement without its quoted parts and comments
	flush := func() {
		s := strings.TrimSpace(cur.String())
		cur.Reset()
		if s == "" {
			return
		}
		word := s
		if i := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') }); i >= 0 {
			word = s[:i]
		}
		out = append(out, statement{keyword: strings.ToLower(word), writer: writers.MatchString(s)})
	}
	for i := 0; i < len(text); {
		switch {
		case text[i] == ';':
			flush()
			i++
		case strings.HasPrefix(text[i:], "--"):
			j := strings.IndexAny(text[i:], "\n\r")
			if j < 0 {
				i = len(text)
			} else {
				i += j
			}
		case strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				i = len(text)
			} else {
				i += j + 4
			}
			cur.WriteByte(' ')
		case text[i] == '\'' || ((text[i] == 'e' || text[i] == 'E') && i+1 < len(text) && text[i+1] == '\'' && (i == 0 || !isWord(text[i-1]))):
			escape := text[i] != '\''
			if escape {
				i++
			}
			i++
			for i < len(text) {
				if escape && text[i] == '\\' {
					i += 2
					continue
				}
				if text[i] == '\'' {
					if i+1 < len(text) && text[i+1] == '\'' {
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
			cur.WriteString("''")
		case text[i] == '"':
			j := strings.IndexByte(text[i+1:], '"')
			if j < 0 {
				i = len(text)
			} else {
				cur.WriteString(text[i : i+j+2])
				i += j + 2
			}
		case text[i] == '$':
			tag := dollarTag(text[i:])
			if tag == "" {
				cur.WriteByte('$')
				i++
				continue
			}
			j := strings.Index(text[i+len(tag):], tag)
			if j < 0 {
				i = len(text)
			} else {
				i += len(tag) + j + len(tag)
			}
			cur.WriteString("''")
		default:
			cur.WriteByte(text[i])
			i++
		}
	}
	flush()
	return out
}

func isWord(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// dollarTag returns the $tag$ that s starts with, or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		if s[j] == '$' {
			return s[:j+1]
		}
		if !isWord(s[j]) || (j == 1 && s[j] >= '0' && s[j] <= '9') {
			return ""
		}
	}
	return ""
}

// scoringFunctions are the nb_* functions whose arguments DuckDB binds by position.
var scoringFunctions = map[string]bool{}

func init() {
	for _, s := range scalarSpecs {
		scoringFunctions[s.name] = true
	}
}

// checkNamedArguments rejects `nb_predict('m', x := 1, ...)` and `nb_predict('m', x => 1, ...)`: DuckDB
// passes arguments to a function by position and drops their names, so named feature arguments would
// silently be matched in training order. It asks DuckDB's parser (json_serialize_sql) only when the text
// has `nb_` and one of the two operators.
func (c *conn) checkNamedArguments(ctx context.Context, query string) error {
	if !strings.Contains(query, ":=") && !strings.Contains(query, "=>") || !strings.Contains(strings.ToLower(query), "nb_") {
		return nil
	}
	rows, err := c.Conn.QueryContext(ctx, "SELECT CAST(json_serialize_sql($1::VARCHAR) AS VARCHAR)", []driver.NamedValue{{Ordinal: 1, Value: query}})
	if err != nil {
		return nil
	}
	defer rows.Close()
	vals := make([]driver.Value, 1)
	if err := rows.Next(vals); err != nil {
		return nil
	}
	var text string
	switch v := vals[0].(type) {
	case string:
		text = v
	case []byte:
		text = string(v)
	default:
		return nil
	}
	var tree any
	if json.Unmarshal([]byte(text), &tree) != nil {
		return nil
	}
	if name, arg := namedArgument(tree); name != "" {
		if slices.ContainsFunc(optionParams, func(p param) bool { return p.name == strings.ToLower(arg) }) {
			return fmt.Errorf("%s: named argument %s := …: scoring functions take no options; %s is a hyperparameter of the "+
				"model: set it with CALL nb_set('model', %s := …) (or sqlnb models set)", name, queries.Ident(arg), arg, strings.ToLower(arg))
		}
		return fmt.Errorf("%s: named argument %s := …: DuckDB passes a function's arguments by position, so the name would be "+
			"ignored; pass the features as one struct, as in %s('model', {%s: …}) or struct_pack(%s := …)", name, queries.Ident(arg), name, queries.Literal(arg), queries.Ident(arg))
	}
	return nil
}

// namedArgument finds, in a json_serialize_sql tree, a call of a scoring function with a named argument.
func namedArgument(n any) (function, arg string) {
	switch v := n.(type) {
	case map[string]any:
		if f, ok := v["function_name"].(string); ok && scoringFunctions[strings.ToLower(f)] {
			if children, ok := v["children"].([]any); ok {
				for _, ch := range children {
					if m, ok := ch.(map[string]any); ok {
						if a, ok := m["alias"].(string); ok && a != "" {
							return strings.ToLower(f), a
						}
					}
				}
			}
		}
		for _, x := range v {
			if f, a := namedArgument(x); f != "" {
				return f, a
			}
		}
	case []any:
		for _, x := range v {
			if f, a := namedArgument(x); f != "" {
				return f, a
			}
		}
	}
	return "", ""
}

// connID returns the DuckDB connection id of a raw connection.
func connID(raw mapping.Connection) uint64 {
	var cctx mapping.ClientContext
	mapping.ConnectionGetClientContext(raw, &cctx)
	defer mapping.DestroyClientContext(&cctx)
	return uint64(mapping.ClientContextGetConnectionId(cctx))
}

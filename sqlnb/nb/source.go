package nb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/queries"
)

// Querier runs statements: *sql.DB, *sql.Conn and *sql.Tx all satisfy it.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// DB is a Querier that can also start a transaction: *sql.DB and *sql.Conn.
type DB interface {
	Querier
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// Source is a resolved table, query or file: a FROM-clause item and the arguments it binds.
type Source struct {
	// Text is what the user gave.
	Text string
	// From is SQL for a FROM clause: a quoted table name, or a table function whose argument is the
	// numbered parameter $1 (see FromAt).
	From string
	// Args are bound to the parameters of From.
	Args []any
	fn   string
}

// FromAt is From with its parameter numbered $n, for statements that bind other parameters first.
func (s Source) FromAt(n int) string {
	if s.fn == "" {
		return s.From
	}
	return fmt.Sprintf("%s($%d)", s.fn, n)
}

// Quoted is the source's text as messages show it: a table name written with quoted parts ("my data",
// main."my data") as it is, anything else (a bare name, a query, a file) in double quotes as %q writes it.
func (s Source) Quoted() string {
	t := strings.TrimSpace(s.Text)
	quoted := false
	for tok := range sqltext.Tokens(t) {
		switch {
		case tok.Kind == sqltext.QuotedName && !tok.Open:
			quoted = true
		case tok.Kind == sqltext.Word || tok.Is("."):
		default: // a query, a file, a name with blanks
			return fmt.Sprintf("%q", s.Text)
		}
	}
	if quoted && splitName(t) != nil {
		return t
	}
	return fmt.Sprintf("%q", s.Text)
}

func funcSource(text, fn string, arg any) Source {
	return Source{Text: text, From: fn + "($1)", Args: []any{arg}, fn: fn}
}

// readers maps file extensions to DuckDB's reader functions.
var readers = map[string]string{
	".parquet": "read_parquet", ".csv": "read_csv", ".tsv": "read_csv", ".txt": "read_csv",
	".json": "read_json", ".jsonl": "read_json", ".ndjson": "read_json",
}

// queryStarts are the first words of a statement that makes a query source.
var queryStarts = []string{"select", "with", "from", "values", "table", "pivot", "unpivot", "("}

// ResolveSource decides what text names, in this order:
//   - a query, if it starts with SELECT, WITH, FROM, VALUES, TABLE, PIVOT, UNPIVOT or "(": read with
//     query($1);
//   - a quoted file name ('data.parquet') or a table function call (read_csv('x', delim = '|')): read as the
//     query FROM text;
//   - a file or glob, if it ends in .parquet, .csv, .tsv, .txt, .json, .jsonl or .ndjson (optionally
//     followed by .gz or .zst): read with DuckDB's read_parquet, read_csv or read_json;
//   - a table or view: a qualified name split at its dots (outside double quotes): schema.name, else
//     database.name (an attached database, any of its schemas, main first), or database.schema.name; else
//     the whole text as one name (a table named "a.b"). Names match without regard to case, as DuckDB's
//     identifiers do, and a name without a database finds the connection's temporary tables and views
//     first. The result names the table by database, schema and name, so that it reads that table whatever
//     else shares its name.
func ResolveSource(ctx context.Context, q Querier, text string) (Source, error) {
	t := strings.TrimSpace(text)
	t = strings.TrimSpace(strings.TrimRight(t, ";"))
	if t == "" {
		return Source{}, fmt.Errorf("%w: empty source: give a table, a query or a file", ErrBadOption)
	}
	if err := checkNotPipe(text); err != nil {
		return Source{}, err
	}
	lower := strings.ToLower(t)
	for first := range sqltext.Significant(lower) {
		if (first.Kind == sqltext.Word || first.Is("(")) && slices.Contains(queryStarts, first.Text) {
			return funcSource(text, "query", t), nil
		}
		break
	}
	// A quoted file name ('data.parquet', as in FROM 'data.parquet') or a table function (read_parquet(...),
	// read_csv(...), range(10)): the FROM item DuckDB reads.
	if strings.HasPrefix(t, "'") || tableFunctionCall(lower) {
		return funcSource(text, "query", "FROM "+t), nil
	}
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.TrimSuffix(lower, ".gz"), ".zst")))
	if reader, ok := readers[ext]; ok {
		src := funcSource(text, reader, t)
		// DuckDB tells compression by a lower-case .gz or .zst only: name it for DATA.CSV.GZ too.
		for suffix, c := range map[string]string{".gz": "gzip", ".zst": "zstd"} {
			if strings.HasSuffix(lower, suffix) && reader != "read_parquet" {
				src.From = reader + "($1, compression = '" + c + "')"
			}
		}
		return src, nil
	}
	var from string
	var ok bool
	var lookErr error // a lookup that failed (a closed database), not one that found nothing
	look := func(database, schema any, name string) bool {
		f, found, err := lookupTable(ctx, q, database, schema, name)
		if err != nil && lookErr == nil {
			lookErr = err
		}
		from = f
		return found
	}
	switch parts := splitName(t); len(parts) {
	case 2: // schema.name, else database.name
		if ok = look(nil, parts[0], parts[1]); !ok {
			ok = look(parts[0], nil, parts[1])
		}
	case 3: // database.schema.name
		ok = look(parts[0], parts[1], parts[2])
	}
	if !ok { // one name, quoted or not, or a table whose name has dots in it, written without quotes
		ok = look(nil, nil, sqltext.Unquote(t))
	}
	if ok {
		return Source{Text: text, From: from}, nil
	}
	if err := ctx.Err(); err != nil { // the lookup was cancelled (Ctrl-C), not empty
		return Source{}, err
	}
	if lookErr != nil {
		return Source{}, fmt.Errorf("source %q: looking it up: %w", text, lookErr)
	}
	return Source{}, fmt.Errorf("%w: source %q: no such table or view (a table of another attached database needs its "+
		"name: db.table; temporary tables of another connection are not visible); a query starts with SELECT, WITH, FROM "+
		"or VALUES, a file ends in .parquet, .csv, .tsv, .txt, .json, .jsonl or .ndjson (optionally .gz or .zst), or "+
		"give it quoted ('data.xlsx') or as a reader (read_csv('data.dat', delim = '|'))",
		ErrBadOption, text)
}

// tableFunctionCall reports whether t is a call of a table function, name(...) with the name unquoted and
// optionally qualified (read_parquet('x'), main.my_macro(1)): a table's name is never followed by "(".
func tableFunctionCall(t string) bool {
	var toks []sqltext.Token
	for tok := range sqltext.Significant(t) {
		toks = append(toks, tok)
	}
	for i := 0; i < len(toks) && toks[i].Kind == sqltext.Word; i += 2 {
		if i+1 < len(toks) && toks[i+1].Is(".") {
			continue
		}
		return i+1 < len(toks) && toks[i+1].Is("(") && toks[len(toks)-1].Is(")")
	}
	return false
}

// splitName splits a qualified name at the dots outside quoted names, strings and comments and unquotes
// the parts; nil if a part is empty.
func splitName(t string) []string { return sqltext.SplitList(t, '.') }

// lookupTable finds the table or view name in schema of database (nil: as source_lookup_table.sql says) and
// returns it quoted for a FROM clause.
func lookupTable(ctx context.Context, q Querier, database, schema any, name string) (string, bool, error) {
	var db, gotSchema, gotName string
	err := q.QueryRowContext(ctx, queries.SQL("source_lookup_table.sql"), database, schema, name).Scan(&db, &gotSchema, &gotName)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return queries.Ident(db) + "." + queries.Ident(gotSchema) + "." + queries.Ident(gotName), true, nil
}

// Column is a source column and its DuckDB type.
type Column struct {
	Name string
	Type string
}

// Describe returns the columns of src.
func Describe(ctx context.Context, q Querier, src Source) ([]Column, error) {
	stmt, err := queries.Render("train_describe.tmpl.sql", queries.Source{From: src.From})
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, stmt, src.Args...)
	if err != nil {
		return nil, fmt.Errorf("read source %q: %w", src.Text, err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var cols []Column
	for rows.Next() {
		vals := make([]sql.NullString, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		cols = append(cols, Column{Name: vals[0].String, Type: vals[1].String})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read source %q: %w", src.Text, err)
	}
	if len(cols) == 0 {
		return nil, errors.New("source has no columns")
	}
	return cols, nil
}

// findColumn returns the column named name: an exact match, else the only case-insensitive one
// (DuckDB identifiers are case-insensitive).
// RequireColumns checks that the source has every named column (what names them in the error: "label",
// "--columns"...): an error names the missing one and lists the columns the source has.
func RequireColumns(ctx context.Context, q Querier, src Source, what string, names ...string) error {
	cols, err := Describe(ctx, q, src)
	if err != nil {
		return err
	}
	return RequireIn(cols, src, what, names...)
}

// requireIn is RequireColumns on the columns of src already described.
func RequireIn(cols []Column, src Source, what string, names ...string) error {
	for _, n := range names {
		if _, ok := FindColumn(cols, n); !ok {
			return fmt.Errorf("%w: %s column %q is not in the source %s (columns: %s)", ErrUnknownColumn, what, n, src.Text, ColumnNames(cols))
		}
	}
	return nil
}

// EqualFoldIdent reports whether two names are the same identifier to DuckDB: equal once ASCII letters are
// lower-cased (DuckDB's identifiers, struct fields and columns alike, ignore ASCII case only: "É" and "é" are
// two columns).
func EqualFoldIdent(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if foldByte(a[i]) != foldByte(b[i]) {
			return false
		}
	}
	return true
}

// foldByte lower-cases an ASCII letter.
func foldByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// FoldIdent lower-cases the ASCII letters of name: the key under which DuckDB compares identifiers.
func FoldIdent(name string) string {
	b := []byte(name)
	for i, c := range b {
		b[i] = foldByte(c)
	}
	return string(b)
}

func FindColumn(cols []Column, name string) (Column, bool) {
	for _, c := range cols {
		if c.Name == name {
			return c, true
		}
	}
	var found []Column
	for _, c := range cols {
		if EqualFoldIdent(c.Name, name) {
			found = append(found, c)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Column{}, false
}

func ColumnNames(cols []Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// typeClass classifies a DuckDB type name for kind selection.
type TypeClass int

const (
	TypeOther TypeClass = iota
	TypeInteger
	TypeFloat  // FLOAT, DOUBLE
	TypeNumber // DECIMAL, HUGEINT...: numeric, converted
	TypeBool
	TypeText // VARCHAR, ENUM
)

func ClassifyType(t string) TypeClass {
	u := strings.ToUpper(t)
	switch {
	case u == "FLOAT" || u == "DOUBLE" || u == "REAL" || u == "FLOAT4" || u == "FLOAT8":
		return TypeFloat
	case u == "TINYINT" || u == "SMALLINT" || u == "INTEGER" || u == "BIGINT" ||
		u == "UTINYINT" || u == "USMALLINT" || u == "UINTEGER" || u == "UBIGINT":
		return TypeInteger
	case u == "HUGEINT" || u == "UHUGEINT" || strings.HasPrefix(u, "DECIMAL"):
		return TypeNumber
	case u == "BOOLEAN":
		return TypeBool
	case u == "VARCHAR" || strings.HasPrefix(u, "ENUM("):
		return TypeText
	}
	return TypeOther
}

func (c TypeClass) Numeric() bool { return c == TypeInteger || c == TypeFloat || c == TypeNumber }

// checkNotPipe refuses a source that is, or whose quoted strings name, a FIFO or a device (/dev/stdin, a
// named pipe): sqlnb reads a source more than once — its columns, then its rows, then for some commands
// its rows again — and a pipe gives its data once (the second read saw nothing and found no columns, or
// blocked for ever on a FIFO with no writer).
func checkNotPipe(text string) error {
	candidates := append([]string{strings.TrimSpace(text)}, sqltext.Literals(text)...)
	for _, c := range candidates {
		if c == "" || strings.ContainsAny(c, "*?\n") {
			continue
		}
		if fi, err := os.Stat(c); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeCharDevice|os.ModeSocket) != 0 {
			return fmt.Errorf("%w: source %q reads %s, a pipe or device: sqlnb reads a source more than once (its columns, then its rows), "+
				"which a pipe gives only once; save the data to a file first (cat > data.csv) and give that", ErrBadOption, text, c)
		}
	}
	return nil
}

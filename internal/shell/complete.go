package shell

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/sqlnb/sqlnb/internal/output"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// catalog is what Tab completes in the shell, read from DuckDB's own catalog.
type catalog struct {
	keywords  []string // lower case (duckdb_keywords())
	functions []string // every function and macro with a plain name, nb_* included
	tables    []string // tables and views: name, and schema.name outside main
	columns   []string // distinct column names of every table and view
	models    []string // rows of nb.models (none when the table does not exist)
}

// catalogQueries read the catalog; each returns one or two text columns (schema, name).
const (
	keywordsSQL  = `SELECT keyword_name FROM duckdb_keywords()`
	functionsSQL = `SELECT DISTINCT function_name FROM duckdb_functions() WHERE regexp_full_match(function_name, '[A-Za-z][A-Za-z0-9_]*')`
	tablesSQL    = `SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT internal
		UNION SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal`
	columnsSQL = `SELECT DISTINCT column_name FROM duckdb_columns() WHERE NOT internal`
)

// loadCatalog reads the catalog through q. A part that cannot be read is left empty.
func loadCatalog(ctx context.Context, q nb.Querier) *catalog {
	strs := func(stmt string) [][]string {
		rows, err := q.QueryContext(ctx, stmt)
		if err != nil {
			return nil
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]string
		for rows.Next() {
			r := make([]string, len(cols))
			ptrs := make([]any, len(cols))
			for i := range r {
				ptrs[i] = &r[i]
			}
			if rows.Scan(ptrs...) == nil {
				out = append(out, r)
			}
		}
		return out
	}
	first := func(stmt string) []string {
		var out []string
		for _, r := range strs(stmt) {
			out = append(out, r[0])
		}
		return out
	}
	c := &catalog{keywords: first(keywordsSQL), functions: first(functionsSQL), columns: first(columnsSQL)}
	for _, r := range strs(tablesSQL) {
		c.tables = append(c.tables, r[1])
		if r[0] != "main" {
			c.tables = append(c.tables, r[0]+"."+r[1])
		}
	}
	c.models = ModelNames(ctx, q)
	return c
}

// catalogCache keeps the catalog between Tabs: the shell marks it stale after a statement that may change
// it (DDL, CALL nb_train, .open, .import) and it is read again at the next Tab. Tab runs on readline's
// goroutine while the shell waits for input, so the shell's connection is free.
type catalogCache struct {
	mu    sync.Mutex
	load  func() *catalog
	cat   *catalog
	stale bool
	// inStatement: the shell is inside a multi-line statement, where a line starting with '.' is SQL.
	inStatement bool
}

func (c *catalogCache) get() *catalog {
	c.mu.Lock()
	defer c.mu.Unlock()
	if (c.cat == nil || c.stale) && c.load != nil {
		c.cat, c.stale = c.load(), false
	}
	if c.cat == nil {
		return &catalog{}
	}
	return c.cat
}

func (c *catalogCache) invalidate() {
	c.mu.Lock()
	c.stale = true
	c.mu.Unlock()
}

func (c *catalogCache) setLoader(load func() *catalog) {
	c.mu.Lock()
	c.load, c.cat = load, nil
	c.mu.Unlock()
}

func (c *catalogCache) setInStatement(b bool) {
	c.mu.Lock()
	c.inStatement = b
	c.mu.Unlock()
}

// readOnlyStarts are first words of statements that leave the catalog as it is (unless they call nb_*).
var readOnlyStarts = []string{"select", "from", "with", "values", "table", "describe", "show", "summarize", "explain", "pivot", "unpivot"}

// changesCatalog reports whether stmt may add or drop tables, columns or models.
func changesCatalog(stmt string) bool {
	s := strings.ToLower(stripLeadingComments(stmt))
	if strings.Contains(s, "nb_") {
		return true
	}
	word := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	return len(word) == 0 || !slices.Contains(readOnlyStarts, word[0])
}

func stripLeadingComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexAny(s, "\n\r"); i >= 0 {
				s = s[i:]
				continue
			}
			return ""
		case strings.HasPrefix(s, "/*"):
			if i := strings.Index(s, "*/"); i >= 0 {
				s = s[i+2:]
				continue
			}
			return ""
		}
		return s
	}
}

// dotCommands are the shell's dot commands, for .help and Tab.
var dotCommands = []struct{ name, args, help string }{
	{".help", "", "this text"},
	{".tables", "", "list tables and views"},
	{".schema", "[NAME]", "CREATE statements (of one table or view)"},
	{".models", "", "list the nb models (FROM nb_models())"},
	{".mode", "MODE", "result format: table, csv, json, line or markdown"},
	{".maxrows", "N", "show at most N rows of a table (0: all; default --max-rows, 40)"},
	{".open", "[FILE]", "close this database and open FILE (none: a new in-memory database)"},
	{".import", "FILE TABLE", "load a .csv, .tsv, .parquet or .json file into TABLE (appended if it exists)"},
	{".read", "FILE", "run the statements and dot commands in FILE"},
	{".output", "[FILE]", "write results to FILE (no FILE: back to the terminal)"},
	{".timer", "on|off", "print how long each statement took"},
	{".quit", "", "leave (also .exit)"},
}

// tableContext are the words after which a table name comes.
var tableContext = []string{"from", "join", "into", "update", "table", "describe", "summarize", "exists"}

var (
	modelArg = regexp.MustCompile(`(?i)\bnb_([a-z_]+)\s*\(\s*'((?:[^']|'')*)$`) // '' is a quote in the name
	wordTail = regexp.MustCompile(`[A-Za-z0-9_.]*$`)
	prevWord = regexp.MustCompile(`([A-Za-z_]+)\s+$`)
)

// complete returns the completions of the text before the cursor (head): whole words, each starting
// with typed, the part of head they replace. dot says whether a line starting with '.' is a dot command.
func (c *catalog) complete(head string, dot bool) (words []string, typed string) {
	if t := strings.TrimLeft(head, " \t"); dot && strings.HasPrefix(t, ".") {
		return c.completeDot(t)
	}
	if strings.Count(head, "'")%2 == 1 { // inside a string: a model name, else a file
		if m := modelArg.FindStringSubmatch(head); m != nil && !strings.EqualFold(m[1], "import") {
			// Names as SQL writes them inside quotes: a quote doubled.
			quoted := make([]string, len(c.models))
			for i, n := range c.models {
				quoted[i] = strings.ReplaceAll(n, "'", "''")
			}
			return prefixedExact(quoted, m[2], "'"), m[2]
		}
		typed = head[strings.LastIndexByte(head, '\'')+1:]
		return completeFile(typed), typed
	}
	typed = wordTail.FindString(head)
	before := strings.ToLower(prevWord.FindString(head[:len(head)-len(typed)]))
	afterTable := slices.Contains(tableContext, strings.TrimSpace(before))
	if typed == "" && !afterTable {
		return nil, ""
	}
	if i := strings.LastIndexByte(typed, '.'); i == 0 {
		return nil, typed
	} else if i > 0 { // schema.table, else alias.column
		if words = prefixed(c.tables, typed[:i+1], ""); len(words) > 0 || afterTable {
			return dedup(prefixed(words, typed, "")), typed
		}
		for _, col := range prefixed(c.columns, typed[i+1:], "") {
			words = append(words, typed[:i+1]+col)
		}
		return dedup(words), typed
	}
	words = prefixed(c.tables, typed, "")
	if afterTable {
		for _, f := range prefixed(c.functions, typed, "(") {
			if strings.HasPrefix(f, "nb_") || strings.HasPrefix(f, "read_") {
				words = append(words, f)
			}
		}
		return dedup(words), typed
	}
	upper := typed != strings.ToLower(typed)
	for _, k := range prefixed(c.keywords, typed, "") {
		if upper {
			k = strings.ToUpper(k)
		}
		words = append(words, typed+k[len(typed):])
	}
	for _, f := range prefixed(c.functions, typed, "") {
		if !slices.Contains(c.keywords, strings.ToLower(f)) {
			f += "("
		}
		words = append(words, f)
	}
	words = append(words, prefixed(c.columns, typed, "")...)
	return dedup(words), typed
}

func (c *catalog) completeDot(t string) ([]string, string) {
	fields := strings.Fields(t)
	if len(fields) == 1 && !strings.HasSuffix(t, " ") {
		var names []string
		for _, d := range dotCommands {
			names = append(names, d.name)
		}
		return prefixed(append(names, ".exit"), t, ""), t
	}
	typed := ""
	if !strings.HasSuffix(t, " ") {
		typed = fields[len(fields)-1]
	}
	arg := len(fields) - 1 // which argument is being typed: 1, 2, ...
	if typed == "" {
		arg++
	}
	switch {
	case fields[0] == ".mode" && arg == 1:
		return prefixed(output.Formats, typed, ""), typed
	case fields[0] == ".timer" && arg == 1:
		return prefixed([]string{"on", "off"}, typed, ""), typed
	case fields[0] == ".schema" && arg == 1, fields[0] == ".import" && arg == 2:
		return prefixed(c.tables, typed, ""), typed
	case slices.Contains([]string{".open", ".read", ".output", ".import"}, fields[0]) && arg == 1:
		return completeFile(typed), typed
	}
	return nil, typed
}

// prefixed returns the names that start with typed (ignoring case), each followed by suffix.
func prefixed(names []string, typed, suffix string) []string {
	var out []string
	for _, n := range names {
		if len(n) >= len(typed) && strings.EqualFold(n[:len(typed)], typed) {
			out = append(out, n+suffix)
		}
	}
	return out
}

// CompleteModel returns the model names that start with typed, as Tab and cobra's completion offer them.
// Model names are case-sensitive and a completion only appends to what was typed, so a match ignoring case
// would write a name that does not exist.
func CompleteModel(names []string, typed string) []string { return prefixedExact(names, typed, "") }

// prefixedExact is prefixed for names that are case-sensitive (models): a completion only appends to what was
// typed, so a match ignoring case would write a name that does not exist ('VO' + 'tes' for votes).
func prefixedExact(names []string, typed, suffix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, typed) {
			out = append(out, n+suffix)
		}
	}
	return out
}

func dedup(words []string) []string {
	slices.Sort(words)
	return slices.Compact(words)
}

// completeFile returns the files and directories (with a trailing /) whose path starts with typed.
func completeFile(typed string) []string {
	dir, base := filepath.Split(typed)
	entries, err := os.ReadDir(filepath.Clean("./" + dir))
	if dir != "" && filepath.IsAbs(dir) {
		entries, err = os.ReadDir(dir)
	}
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, dir+name)
	}
	return out
}

// shellCompleter adapts the catalog to readline: Tab at the cursor.
type shellCompleter struct{ cache *catalogCache }

func (s shellCompleter) Do(line []rune, pos int) ([][]rune, int) {
	s.cache.mu.Lock()
	dot := !s.cache.inStatement
	s.cache.mu.Unlock()
	words, typed := s.cache.get().complete(string(line[:pos]), dot)
	n := len([]rune(typed))
	var out [][]rune
	for _, w := range words {
		r := []rune(w)
		if len(r) >= n && !slices.Equal(r, []rune(typed)) {
			out = append(out, r[n:])
		}
	}
	return out, n
}

// ModelNames returns the names in nb.models; none when the model store does not exist.
func ModelNames(ctx context.Context, db nb.Querier) []string {
	var exists bool
	if db.QueryRowContext(ctx, queries.SQL("store_schema_exists.sql")).Scan(&exists) != nil || !exists {
		return nil
	}
	rows, err := db.QueryContext(ctx, queries.SQL("store_model_names.sql"))
	if err != nil {
		return nil
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	return names
}

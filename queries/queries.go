package queries

import (
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
)

//go:embed *.sql
var files embed.FS

// Row is the alias of the source in every query over it, and so the name of its row as a value
// (nb_predict('m', __sqlnb_row), hash(__sqlnb_row)): a name no source column has, where "t" was a column's name
// as well (DuckDB binds a bare name to a column first, and a source column t then stood for the row).
const Row = "__sqlnb_row"

// Ident quotes name as a DuckDB identifier: it is wrapped in double quotes and every double quote inside
// is doubled, so any string (spaces, quotes, parentheses, unicode) names exactly that column or table.
// It is the only place in sqlnb where an identifier enters SQL text.
func Ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// ValidIdent reports why name cannot be a DuckDB identifier, or nil: it must be non-empty and free of NUL
// bytes, which DuckDB cannot store in a name.
func ValidIdent(name string) error {
	if name == "" {
		return fmt.Errorf("empty name")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return fmt.Errorf("name %q contains a NUL byte", name)
	}
	return nil
}

// SQL returns the statement in the embedded file name (for example "store_list_models.sql").
// It panics on an unknown name: the set of files is fixed at build time and covered by tests.
func SQL(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("queries: no embedded file %q", name))
	}
	return string(b)
}

var (
	tmplOnce sync.Once
	tmpls    *template.Template
)

// Render executes the embedded template name (a .tmpl.sql file) with data. Templates see the functions
// ident (Ident), add, and last; nothing else can place text from data into the statement.
func Render(name string, data any) (string, error) {
	tmplOnce.Do(func() {
		tmpls = template.Must(template.New("").Funcs(template.FuncMap{
			"ident": Ident,
			"add":   func(a, b int) int { return a + b },
			"last":  func(i, n int) bool { return i == n-1 },
		}).ParseFS(files, "*.tmpl.sql"))
	})
	var b strings.Builder
	if err := tmpls.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// Literal quotes s as a DuckDB string literal ('...' with every ' doubled). It is used only where
// DuckDB cannot take a bound parameter: the model name of an nb_* scoring function, which must be a
// constant when the query is bound.
func Literal(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

package queries_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/udf"
)

func mustOpenDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var seeds = []string{"x", "a b", `a"b`, `""`, `"`, "'", "''", "ünï 数据 ✓", "(p)", "a.b", "select", "--c", "/*", ";drop table t;", "\\", "\t", " "}

// FuzzIdent: a column named Ident(name) comes back as exactly name.
func FuzzIdent(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	db := mustOpenDB(f)
	f.Fuzz(func(t *testing.T, name string) {
		if queries.ValidIdent(name) != nil || !utf8.ValidString(name) {
			return
		}
		rows, err := db.Query(`SELECT 1 AS ` + queries.Ident(name))
		if err != nil {
			t.Fatalf("Ident(%q) = %s: %v", name, queries.Ident(name), err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		if len(cols) != 1 || cols[0] != name {
			t.Fatalf("Ident(%q): column %q", name, cols)
		}
	})
}

// FuzzLiteral: the literal Literal(s) evaluates to exactly s.
func FuzzLiteral(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	db := mustOpenDB(f)
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
			return
		}
		var got string
		if err := db.QueryRow(`SELECT ` + queries.Literal(s)).Scan(&got); err != nil || got != s {
			t.Fatalf("Literal(%q) = %s: got %q, %v", s, queries.Literal(s), got, err)
		}
	})
}

// feature is a feature as the training templates read it (.Name, and the flags and expressions some of them
// take).
type feature struct {
	Name                            string
	Expr, Raw                       string
	Cast, NaNToNull, Numeric, Float bool
	Binarize                        bool
}

// column is a statistics table's column (store_*_stats).
type column struct{ Name, Type string }

// templateCases are representative data for every template (their header comments say what each takes):
// base is rendered as it is and with each of the variants laid over it, so every {{if}} is taken both ways.
// wrap turns a fragment (a FROM item, an expression) into a statement. The data are maps, as sqlnb's call
// sites pass them (map[string]any).
var templateCases = map[string]struct {
	base     map[string]any
	variants []map[string]any
	wrap     string
}{
	"compare_drop.tmpl.sql":      {base: m("Table", "nb compare")},
	"compare_split.tmpl.sql":     {base: m("Table", "nb compare", "From", "query($1)", "Seed", 2, "Fraction", 3)},
	"compare_subset.tmpl.sql":    {base: m("Table", "nb compare", "Size", 40)},
	"compare_test_rows.tmpl.sql": {base: m("Table", "nb compare", "Models", 3), wrap: "SELECT * FROM %s"},
	"cv_metrics.tmpl.sql":        {base: m("From", `"t"`, "Label", `y "1"`, "Group", "hash(__sqlnb_row) % 5", "Terms", "nb_cv_terms(1, 2, 'y', NULL, __sqlnb_row)")},
	"em_classes.tmpl.sql":        {base: m("From", `"t"`, "Label", "y", "Param", 2)},
	"em_drop.tmpl.sql":           {base: m("Table", "nb_em_rows")},
	"em_estep.tmpl.sql":          {base: m("Score", "nb_cv_em(1, 0, NULL, __sqlnb_row)")},
	"em_labelled_ll.tmpl.sql": {base: m("From", `"t"`, "Label", "y", "Weight", "", "Score", "nb_cv_em(1, 0, y, __sqlnb_row)"),
		variants: []map[string]any{m("Weight", "w")}},
	"em_rows.tmpl.sql": {base: m("From", "query($1)", "Label", "y", "Weight", "", "Features", []string{"a", `b "c"`}),
		variants: []map[string]any{m("Weight", "w")}},
	"em_source.tmpl.sql": {base: m("From", `"t"`, "Label", "y", "Weight", "", "Features", []string{"a", "b"}),
		variants: []map[string]any{m("Weight", "w")}, wrap: "SELECT * FROM %s"},
	"eval_cells.tmpl.sql": {base: m("Table", true, "Grouped", false, "Positions", []int{1, 2, 3}, "Pos", 0,
		"From", "query($2)", "Label", "y", "Group", "", "Proba", "nb_predict_proba('m', __sqlnb_row)", "Ordered", true),
		variants: []map[string]any{m("Table", false), m("Grouped", true, "Group", "hash(__sqlnb_row) % 3"), m("Pos", 2, "Positions", []int{1, 2}), m("Table", false, "Ordered", false)}},
	"eval_classes.tmpl.sql":  {base: m("From", "query($1)", "Label", "y", "Proba", "nb_predict_proba('m', __sqlnb_row)")},
	"eval_counts.tmpl.sql":   {base: m("Grouped", false, "Positions", []int{1, 2}), variants: []map[string]any{m("Grouped", true)}},
	"eval_labelled.tmpl.sql": {base: m("From", `"t"`, "Label", "y")},
	"eval_score_table.tmpl.sql": {base: m("From", "query($2)", "Label", "y", "Grouped", false, "Group", "", "Proba", "nb_predict_proba('m', __sqlnb_row)",
		"Ordered", true, "Positions", []int{1, 2, 3}),
		variants: []map[string]any{m("Grouped", true, "Group", "hash(__sqlnb_row) % 3"), m("Ordered", false)}},
	"eval_scored.tmpl.sql": {base: m("From", "query($2)", "Label", "y", "Grouped", false, "Group", "", "Proba", "nb_predict_proba('m', __sqlnb_row)",
		"Ordered", true, "Positions", []int{1, 2, 3}),
		variants: []map[string]any{m("Grouped", true, "Group", "hash(__sqlnb_row) % 3"), m("Ordered", false)}},
	"eval_sorted.tmpl.sql":            {base: m("Col", 2, "Grouped", false), variants: []map[string]any{m("Grouped", true)}},
	"exact_sum.tmpl.sql":              {base: m()}, // only a {{define}}: renders to nothing, checked through its callers and below
	"export_drop.tmpl.sql":            {base: m("Kind", "table", "Name", "m_scores"), variants: []map[string]any{m("Kind", "macro")}},
	"order_labels.tmpl.sql":           {base: m("Type", "DECIMAL(18,3)")},
	"source_explain.tmpl.sql":         {base: m("From", "read_parquet($1)")},
	"source_labels.tmpl.sql":          {base: m("From", `"main"."t"`, "Label", "y")},
	"source_other_folds.tmpl.sql":     {base: m("From", "query($1)", "Fold", "hash(__sqlnb_row) % 5", "Param", 2), wrap: "SELECT * FROM %s"},
	"store_create_marker.tmpl.sql":    {base: m("Name", "sqlnb_version_3"), variants: []map[string]any{m("IfMissing", true)}},
	"store_create_models.tmpl.sql":    {base: m("Table", "models")},
	"store_create_stats.tmpl.sql":     {base: m("Name", "gaussian", "Columns", []column{{"feature", "VARCHAR"}, {"n", "BIGINT"}, {"mean", "DOUBLE"}})},
	"store_delete_stats.tmpl.sql":     {base: m("Name", "gaussian")},
	"store_drop_marker.tmpl.sql":      {base: m("Name", "sqlnb_version_3")},
	"store_insert_stats.tmpl.sql":     {base: m("Name", "gaussian", "Columns", []column{{"feature", "VARCHAR"}, {"n", "BIGINT"}, {"mean", "DOUBLE"}})},
	"store_load_stats.tmpl.sql":       {base: m("Name", "gaussian", "Columns", []column{{"feature", "VARCHAR"}, {"n", "BIGINT"}})},
	"store_upgrade_group_id.tmpl.sql": {base: m("Name", "gaussian")},
	"train_classes.tmpl.sql":          {base: train(), variants: trainVariants},
	"train_comoments.tmpl.sql": {base: merge(train(), m("Missing", false, "Shift", false, "Features", []string{"a", `b "c"`},
		"Pairs", []map[string]int{{"J": 0, "K": 0}, {"J": 0, "K": 1}, {"J": 1, "K": 1}})),
		variants: append([]map[string]any{m("Missing", true), m("Shift", true), m("Shift", true, "Fold", "f")}, trainVariants...)},
	"train_counts.tmpl.sql":            {base: merge(train(), m("Features", []feature{{Name: "a", Expr: `"a"`}, {Name: "b", Expr: `CAST("b" AS VARCHAR)`}})), variants: trainVariants},
	"train_describe.tmpl.sql":          {base: m("From", "read_csv($1)")},
	"train_groups.tmpl.sql":            {base: m("From", `"t"`, "By", []string{"g", "h"}, "ID", `CAST(hash(__sqlnb_row."g", __sqlnb_row."h", 1) >> 1 AS BIGINT)`)},
	"train_logistic_describe.tmpl.sql": {base: merge(train(), m("Features", []feature{{Name: "a", Numeric: true}, {Name: "b"}})), variants: trainVariants},
	"train_logistic_pass.tmpl.sql":     {base: merge(train(), logistic(), m("Token", "'fit 1'")), variants: trainVariants},
	"train_logistic_sample.tmpl.sql": {base: merge(train(), logistic(), m("Token", "", "Sample", false, "Mod", "$5", "Keep", "$6")),
		variants: append([]map[string]any{m("Token", "'fit 1'"), m("Sample", true)}, trainVariants...)},
	"train_logistic_step.tmpl.sql": {base: merge(train(), logistic(), m("Z", []map[string]any{{"B": "$4", "W": []string{"$5", "$6"}}, {"B": "$7", "W": []string{"$8", "$9"}}},
		"Free", []int{1, 2}, "Pairs", []map[string]int{{"C": 1, "D": 1}, {"C": 1, "D": 2}, {"C": 2, "D": 2}},
		"Prods", []map[string]int{{"J": 1, "K": 1}, {"J": 1, "K": 2}, {"J": 2, "K": 2}}, "Cols1", []int{1, 2})),
		variants: append([]map[string]any{m("Pairs", nil, "Prods", nil)}, trainVariants...)},
	"train_long_terms.tmpl.sql": {base: merge(train(), m("TermsFrom", "query($2)", "Doc", "doc", "Term", "term", "Count", "n", "Present", "n >= $3")), variants: trainVariants},
	"train_missing.tmpl.sql":    {base: merge(train(), m("Features", []feature{{Name: "a", Float: true}, {Name: "b"}}))},
	"train_moments.tmpl.sql": {base: merge(train(), m("Shift", false, "Features", []feature{{Name: "a", Cast: true}, {Name: "b", NaNToNull: true}, {Name: "c"}})),
		variants: append([]map[string]any{m("Shift", true), m("Shift", true, "Weight", "w")}, trainVariants...)},
	"train_nonfinite.tmpl.sql": {base: merge(train(), m("Features", []feature{{Name: "a"}, {Name: "b"}}))},
	"train_poisson.tmpl.sql":   {base: merge(train(), m("Features", []feature{{Name: "a"}, {Name: "b"}})), variants: trainVariants},
	"train_profile.tmpl.sql":   {base: merge(train(), m("Columns", []string{"a", "b"}, "Limit", "$2"))},
	"train_sums.tmpl.sql":      {base: merge(train(), m("Features", []feature{{Name: "a"}, {Name: "b"}})), variants: trainVariants},
	"train_terms.tmpl.sql": {base: merge(train(), m("Tokens", `list_filter(regexp_split_to_array(lower("text"), '[^\p{L}\p{N}]+'), lambda t: t <> '')`,
		"Present", "e.value >= $2", "Docs", "")), variants: append([]map[string]any{m("Docs", `"text"`)}, trainVariants...)},
	"type_name.tmpl.sql": {base: m("Type", "DECIMAL(18,3)")},
}

// train is the data every training template takes: the source, label, weight and fold (sqlnb/nb.Scan.Query).
func train() map[string]any {
	return m("From", "read_parquet($1)", "Label", `class "y"`, "Weight", "", "Fold", "")
}

// trainVariants take a training template's weight and fold branches.
var trainVariants = []map[string]any{m("Weight", "w"), m("Fold", "hash(__sqlnb_row) % 5"), m("Weight", "w", "Fold", "hash(__sqlnb_row) % 5")}

// logistic is the data of the logistic regression templates: features, design columns and classes.
func logistic() map[string]any {
	return m("Features", []feature{{Name: "a", Numeric: true}, {Name: "b"}},
		"Cols", []feature{{Expr: `((CAST("a" AS DOUBLE) - $2) / $3)`, Raw: `CAST("a" AS DOUBLE)`}, {Expr: `(CAST("b" AS VARCHAR) = $4)::DOUBLE`, Raw: `(CAST("b" AS VARCHAR) = $4)::DOUBLE`}},
		"Classes", []string{"$10", "$11", "$12"})
}

func m(kv ...any) map[string]any {
	out := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func merge(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, x := range ms {
		maps.Copy(out, x)
	}
	return out
}

// TestEveryTemplateRenders renders every embedded template (*.tmpl.sql) with representative data, each of
// its branches taken, and checks that DuckDB's parser (duckdb_extract_statements) reads the result as one
// statement. Parsing binds nothing, so no table need exist; a template's column and function names are
// tested by the code paths that run it.
func TestEveryTemplateRenders(t *testing.T) {
	parse := mustParser(t)
	files, err := filepath.Glob("*.tmpl.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	for _, name := range files {
		c, ok := templateCases[name]
		if !ok {
			t.Errorf("%s: no data in templateCases: add some", name)
			continue
		}
		for i, v := range append([]map[string]any{nil}, c.variants...) {
			data := merge(c.base, v)
			stmt, err := queries.Render(name, data)
			if err != nil {
				t.Errorf("%s (variant %d): %v", name, i, err)
				continue
			}
			if strings.Contains(stmt, "<no value>") {
				t.Errorf("%s (variant %d): data missing:\n%s", name, i, stmt)
			}
			if name == "exact_sum.tmpl.sql" {
				if strings.TrimSpace(stmt) != "" {
					t.Errorf("%s renders text outside its define: %q", name, stmt)
				}
				if stmt, err = queries.Render("exact_sum", "x"); err != nil {
					t.Fatal(err)
				}
				c.wrap = "SELECT %s FROM range(3) r(x)"
			}
			if c.wrap != "" {
				stmt = fmt.Sprintf(c.wrap, stmt)
			}
			if n, err := parse(stmt); err != nil || n != 1 {
				t.Errorf("%s (variant %d): DuckDB parses %d statements: %v\n%s", name, i, n, err, stmt)
			}
		}
	}
	for name := range templateCases {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("templateCases has data for %s, which is no template", name)
		}
	}
}

// mustParser returns DuckDB's own statement parser on an in-memory database.
func mustParser(tb testing.TB) func(string) (int, error) {
	tb.Helper()
	db, err := udf.Open(":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close(); db.Close() })
	parse, err := udf.Parser(conn)
	if err != nil {
		tb.Fatal(err)
	}
	return parse
}

package queries_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlnb/sqlnb/internal/testdb"
	"github.com/sqlnb/sqlnb/queries"
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

// templateCases are representative data for every template, in the typed data the template's header
// comment names (data.go): each value is rendered, so every {{if}} is taken both ways and a field renamed
// in a type but not in its template (or the reverse) fails here. wrap turns a fragment (a FROM item, an
// expression) into a statement.
var templateCases = map[string]struct {
	data []any
	wrap string
}{
	"compare_drop.tmpl.sql":      {data: all(queries.TableName{Table: "nb compare"})},
	"compare_split.tmpl.sql":     {data: all(queries.CompareSplit{Table: "nb compare", From: "query($1)", Seed: 2, Fraction: 3})},
	"compare_subset.tmpl.sql":    {data: all(queries.CompareSubset{Table: "nb compare", Size: 40})},
	"compare_test_rows.tmpl.sql": {data: all(queries.CompareTestRows{Table: "nb compare", Models: 3}), wrap: "SELECT * FROM %s"},
	"cv_metrics.tmpl.sql": {data: all(queries.CVMetrics{From: `"t"`, Label: `y "1"`, Group: "hash(__sqlnb_row) % 5",
		Terms: "nb_cv_terms(1, 2, 'y', NULL, __sqlnb_row)"})},
	"em_classes.tmpl.sql": {data: all(queries.EMClasses{From: `"t"`, Label: "y", Param: 2})},
	"em_drop.tmpl.sql":    {data: all(queries.TableName{Table: "nb_em_rows"})},
	"em_estep.tmpl.sql":   {data: all(queries.EMEStep{Score: "nb_cv_em(1, 0, NULL, __sqlnb_row)"})},
	"em_labelled_ll.tmpl.sql": {data: all(
		queries.EMLabelled{From: `"t"`, Label: "y", Score: "nb_cv_em(1, 0, y, __sqlnb_row)"},
		queries.EMLabelled{From: `"t"`, Label: "y", Weight: "w", Score: "nb_cv_em(1, 0, y, __sqlnb_row)"})},
	"em_rows.tmpl.sql": {data: all(
		queries.EMRows{From: "query($1)", Label: "y", Features: []string{"a", `b "c"`}},
		queries.EMRows{From: "query($1)", Label: "y", Weight: "w", Features: []string{"a", `b "c"`}})},
	"em_source.tmpl.sql": {data: all(
		queries.EMRows{From: `"t"`, Label: "y", Features: []string{"a", "b"}},
		queries.EMRows{From: `"t"`, Label: "y", Weight: "w", Features: []string{"a", "b"}}), wrap: "SELECT * FROM %s"},
	"eval_cells.tmpl.sql": {data: all(
		queries.EvalCells{EvalScored: scored(false, true, 3), Table: true},
		queries.EvalCells{EvalScored: scored(false, true, 3)},
		queries.EvalCells{EvalScored: scored(true, true, 3), Table: true},
		queries.EvalCells{EvalScored: scored(false, true, 2), Table: true, Pos: 2},
		queries.EvalCells{EvalScored: scored(false, false, 3)})},
	"eval_classes.tmpl.sql":     {data: all(queries.EvalClasses{From: "query($1)", Label: "y", Proba: "nb_predict_proba('m', __sqlnb_row)"})},
	"eval_counts.tmpl.sql":      {data: all(queries.EvalCounts{Positions: []int{1, 2}}, queries.EvalCounts{Grouped: true, Positions: []int{1, 2}})},
	"eval_labelled.tmpl.sql":    {data: all(queries.Labelled{From: `"t"`, Label: "y"})},
	"eval_score_table.tmpl.sql": {data: all(scored(false, true, 3), scored(true, true, 3), scored(false, false, 3))},
	"eval_scored.tmpl.sql":      {data: all(scored(false, true, 3), scored(true, true, 3), scored(false, false, 3))},
	"eval_sorted.tmpl.sql":      {data: all(queries.EvalSorted{Col: 2}, queries.EvalSorted{Col: 2, Grouped: true})},
	"exact_sum.tmpl.sql":        {data: all("x")}, // only a {{define}} over a column name: checked through its callers and below
	"export_drop.tmpl.sql":      {data: all(queries.ExportDrop{Kind: "table", Name: "m_scores"}, queries.ExportDrop{Kind: "macro", Name: "m_scores"})},
	"order_labels.tmpl.sql":     {data: all(queries.TypeName{Type: "DECIMAL(18,3)"})},
	"predict_copy.tmpl.sql": {data: all(queries.PredictCopy{Select: "SELECT 1", Path: 2, Format: "csv"},
		queries.PredictCopy{Select: "SELECT 1", Path: 2, Format: "csv", Options: ", DELIMITER '\t', COMPRESSION gzip"})},
	"predict_select.tmpl.sql": {data: all(queries.Predict{From: "read_parquet($1)", Model: "'m'", Prediction: "prediction"},
		queries.Predict{From: `"t"`, Columns: []string{"id", `a "b"`}, Model: "'m'", LabelCast: "DECIMAL(18,3)", Prediction: "nb_prediction",
			ProbaMap: "nb_proba", Posteriors: "nb___sqlnb_posteriors", Proba: []string{"nb_proba_x", "nb_proba_y"}})},
	"source_explain.tmpl.sql": {data: all(queries.Source{From: "read_parquet($1)"})},
	"source_labels.tmpl.sql":  {data: all(queries.Labelled{From: `"main"."t"`, Label: "y"})},
	"source_other_folds.tmpl.sql": {data: all(queries.OtherFolds{From: "query($1)", Fold: "hash(__sqlnb_row) % 5", Param: 2}),
		wrap: "SELECT * FROM %s"},
	"store_create_marker.tmpl.sql":    {data: all(queries.Marker{Name: "sqlnb_version_3"}, queries.Marker{Name: "sqlnb_version_3", IfMissing: true})},
	"store_create_stats.tmpl.sql":     {data: all(stats)},
	"store_delete_stats.tmpl.sql":     {data: all(stats)},
	"store_drop_marker.tmpl.sql":      {data: all(queries.Marker{Name: "sqlnb_version_3"})},
	"store_insert_stats.tmpl.sql":     {data: all(stats)},
	"store_load_stats.tmpl.sql":       {data: all(stats)},
	"store_create_models.tmpl.sql":    {data: all(queries.ModelsTable{Table: "models_v5"})},
	"store_upgrade_group_id.tmpl.sql": {data: all(stats)},
	"train_classes.tmpl.sql":          {data: eachTrain(func(t queries.Train) any { return t })},
	"train_comoments.tmpl.sql": {data: append(eachTrain(func(t queries.Train) any { return comoments(t, false, false) }),
		comoments(train, true, false), comoments(train, false, true), comoments(train, true, true),
		comoments(queries.Train{From: train.From, Label: train.Label, Fold: "f"}, false, true))},
	"train_counts.tmpl.sql": {data: eachTrain(func(t queries.Train) any {
		return queries.Counts{Train: t, Features: []queries.CountFeature{{Name: "a", Expr: `"a"`}, {Name: "b", Expr: `CAST("b" AS VARCHAR)`}}}
	})},
	"train_describe.tmpl.sql": {data: all(queries.Source{From: "read_csv($1)"})},
	"train_groups.tmpl.sql": {data: all(queries.Groups{From: `"t"`, By: []string{"g", "h"},
		ID: `CAST(hash(__sqlnb_row."g", __sqlnb_row."h", 1) >> 1 AS BIGINT)`})},
	"train_logistic_describe.tmpl.sql": {data: eachTrain(func(t queries.Train) any {
		return queries.LogisticDescribe{Train: t, Features: logisticFeatures}
	})},
	"train_logistic_pass.tmpl.sql": {data: eachTrain(func(t queries.Train) any {
		return queries.LogisticPass{Logistic: logistic(t), Token: "'fit 1'"}
	})},
	"train_logistic_sample.tmpl.sql": {data: append(eachTrain(func(t queries.Train) any {
		return queries.LogisticSample{Logistic: logistic(t), Mod: "$5", Keep: "$6"}
	}), queries.LogisticSample{Logistic: logistic(train), Mod: "$5", Keep: "$6", Token: "'fit 1'"},
		queries.LogisticSample{Logistic: logistic(train), Mod: "$5", Keep: "$6", Sample: true})},
	"train_logistic_step.tmpl.sql": {data: append(eachTrain(func(t queries.Train) any { return step(t, true) }), step(train, false))},
	"train_long_terms.tmpl.sql": {data: eachTrain(func(t queries.Train) any {
		return queries.LongTerms{Train: t, TermsFrom: "query($2)", Doc: "doc", Term: "term", Count: "n", Present: "n >= $3"}
	})},
	"train_missing.tmpl.sql": {data: all(queries.Missing{From: train.From, Label: train.Label,
		Features: []queries.MissingFeature{{Name: "a", Float: true}, {Name: "b"}}})},
	"train_kde_describe.tmpl.sql": {data: all(queries.Features{Train: train, Features: []queries.Feature{{Name: "a"}, {Name: "b"}}})},
	"train_kde_bins.tmpl.sql": {data: all(queries.KDEBins{Train: train, Features: []queries.Feature{{Name: "a"}, {Name: "b"}},
		Grid: []queries.KDEGridEntry{{Class: "$2", J: "$3", Lo: "$4", Delta: "$5", W: "$6"}, {Class: "$7", J: "$8", Lo: "$9", Delta: "$10", W: "$11"}}})},
	"train_moments.tmpl.sql": {data: append(eachTrain(func(t queries.Train) any { return moments(t, false) }),
		moments(train, true), moments(queries.Train{From: train.From, Label: train.Label, Weight: "w"}, true))},
	"train_nonfinite.tmpl.sql": {data: all(queries.Nonfinite{From: train.From, Label: train.Label, Features: []queries.Feature{{Name: "a"}, {Name: "b"}}})},
	"train_poisson.tmpl.sql": {data: eachTrain(func(t queries.Train) any {
		return queries.Features{Train: t, Features: []queries.Feature{{Name: "a"}, {Name: "b"}}}
	})},
	"train_profile.tmpl.sql": {data: all(queries.Profile{From: train.From, Label: train.Label, Columns: []string{"a", "b"}, Limit: "$2"})},
	"train_sums.tmpl.sql": {data: eachTrain(func(t queries.Train) any {
		return queries.Features{Train: t, Features: []queries.Feature{{Name: "a"}, {Name: "b"}}}
	})},
	"train_terms.tmpl.sql": {data: append(eachTrain(func(t queries.Train) any { return terms(t, "") }), terms(train, `"text"`))},
	"type_name.tmpl.sql":   {data: all(queries.TypeName{Type: "DECIMAL(18,3)"})},
}

// train is the source and label of the training templates' cases (sqlnb/nb.Scan.Train).
var train = queries.Train{From: "read_parquet($1)", Label: `class "y"`}

// eachTrain is a training template's data over train with each of its weight and fold branches.
func eachTrain(data func(queries.Train) any) []any {
	var out []any
	for _, w := range []string{"", "w"} {
		for _, f := range []string{"", "hash(__sqlnb_row) % 5"} {
			t := train
			t.Weight, t.Fold = w, f
			out = append(out, data(t))
		}
	}
	return out
}

func all(data ...any) []any { return data }

var stats = queries.StatsTable{Name: "gaussian", Columns: []queries.Column{{Name: "feature", Type: "VARCHAR"}, {Name: "n", Type: "BIGINT"}, {Name: "mean", Type: "DOUBLE"}}}

var logisticFeatures = []queries.LogisticFeature{{Name: "a", Numeric: true}, {Name: "b"}}

// scored is eval_scored's data with K classes.
func scored(grouped, ordered bool, k int) queries.EvalScored {
	d := queries.EvalScored{From: "query($2)", Label: "y", Grouped: grouped, Proba: "nb_predict_proba('m', __sqlnb_row)", Ordered: ordered}
	if grouped {
		d.Group = "hash(__sqlnb_row) % 3"
	}
	for i := range k {
		d.Positions = append(d.Positions, i+1)
	}
	return d
}

func comoments(t queries.Train, missing, shift bool) queries.Comoments {
	return queries.Comoments{Train: t, Missing: missing, Shift: shift, Features: []string{"a", `b "c"`},
		Pairs: []queries.Pair{{J: 0, K: 0}, {J: 0, K: 1}, {J: 1, K: 1}}}
}

func moments(t queries.Train, shift bool) queries.Moments {
	return queries.Moments{Train: t, Shift: shift, Features: []queries.MomentFeature{{Name: "a", Cast: true}, {Name: "b", NaNToNull: true}, {Name: "c"}}}
}

func terms(t queries.Train, docs string) queries.Terms {
	return queries.Terms{Train: t, Tokens: `list_filter(regexp_split_to_array(lower("text"), '[^\p{L}\p{N}]+'), lambda t: t <> '')`,
		Present: "e.value >= $2", Docs: docs}
}

// logistic is the data of the logistic regression templates: features, design columns and classes.
func logistic(t queries.Train) queries.Logistic {
	t.Fold = "" // a fit has no folds
	return queries.Logistic{Train: t, Features: logisticFeatures,
		Cols: []queries.DesignCol{{Expr: `((CAST("a" AS DOUBLE) - $2) / $3)`, Raw: `CAST("a" AS DOUBLE)`},
			{Expr: `(CAST("b" AS VARCHAR) = $4)::DOUBLE`, Raw: `(CAST("b" AS VARCHAR) = $4)::DOUBLE`}},
		Classes: []string{"$10", "$11", "$12"}}
}

// step is train_logistic_step's data, with the Hessian's class pairs when hess.
func step(t queries.Train, hess bool) queries.LogisticStep {
	d := queries.LogisticStep{Logistic: logistic(t), Z: []queries.LogisticZ{{B: "$4", W: []string{"$5", "$6"}}, {B: "$7", W: []string{"$8", "$9"}}},
		Free: []int{1, 2}, Prods: []queries.Pair{{J: 1, K: 1}, {J: 1, K: 2}, {J: 2, K: 2}}, Cols1: []int{1, 2}}
	if hess {
		d.Pairs = []queries.ClassPair{{C: 1, D: 1}, {C: 1, D: 2}, {C: 2, D: 2}}
	}
	return d
}

// TestEveryTemplateRenders renders every embedded template (*.tmpl.sql) with representative data, each of
// its branches taken, and checks that DuckDB's parser (duckdb_extract_statements) reads the result as one
// statement. Parsing binds nothing, so no table need exist; a template's column and function names are
// tested by the code paths that run it.
func TestEveryTemplateRenders(t *testing.T) {
	queriesPkg := reflect.TypeFor[queries.Train]().PkgPath()
	parse := testdb.Parser(t)
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
		for i, data := range c.data {
			if typ := reflect.TypeOf(data); name != "exact_sum.tmpl.sql" && (typ.Kind() != reflect.Struct || typ.PkgPath() != queriesPkg) {
				t.Errorf("%s (case %d): data of type %T: give the template a data type in package queries (data.go)", name, i, data)
			}
			stmt, err := queries.Render(name, data)
			if err != nil {
				t.Errorf("%s (case %d): %v", name, i, err)
				continue
			}
			if strings.Contains(stmt, "<no value>") {
				t.Errorf("%s (case %d): data missing:\n%s", name, i, stmt)
			}
			if name == "exact_sum.tmpl.sql" {
				if strings.TrimSpace(stmt) != "" {
					t.Errorf("%s renders text outside its define: %q", name, stmt)
				}
				if stmt, err = queries.Render("exact_sum", data); err != nil {
					t.Fatal(err)
				}
				c.wrap = "SELECT %s FROM range(3) r(x)"
			}
			if c.wrap != "" {
				stmt = fmt.Sprintf(c.wrap, stmt)
			}
			if n, err := parse(stmt); err != nil || n != 1 {
				t.Errorf("%s (case %d): DuckDB parses %d statements: %v\n%s", name, i, n, err, stmt)
			}
		}
	}
	for name := range templateCases {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("templateCases has data for %s, which is no template", name)
		}
	}
}

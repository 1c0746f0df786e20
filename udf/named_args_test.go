package udf

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// namedArgumentCases are texts and the named argument of a scoring call they hold ("" for none), written
// by hand from DuckDB's grammar: func_arg_expr is a_expr, or param_name followed by := or => and a_expr.
var namedArgumentCases = []struct{ name, text, want string }{
	{"colon equals", `SELECT nb_predict('m', b := 0.0, a := 10.0)`, "nb_predict b :="},
	{"arrow", `SELECT nb_predict('m', b => 0.0)`, "nb_predict b =>"},
	{"arrow, no blanks, negative", `SELECT nb_predict('m',b=>-1.0)`, "nb_predict b =>"},
	{"after a positional argument", `SELECT nb_explain('m', t, alpha := 2) FROM t`, "nb_explain alpha :="},
	{"quoted argument", `SELECT nb_proba('m', "it's" := 1, 'a')`, "nb_proba it's :="},
	{"upper case call", `SELECT NB_PREDICT_PROBA('m', X := 1)`, "nb_predict_proba X :="},
	{"quoted call", `SELECT "nb_log_evidence"('m', x := 1)`, "nb_log_evidence x :="},
	{"qualified call", `SELECT main.nb_joint_log_likelihood('m', x := 1)`, "nb_joint_log_likelihood x :="},
	{"comment before (", "SELECT nb_predict -- why\n('m', x := 1)", "nb_predict x :="},
	{"nested in another call", `SELECT coalesce(nb_predict('m', x := 1), 'a')`, "nb_predict x :="},
	{"in a lambda", `SELECT list_transform([1, 2], lambda v: nb_predict('m', x := v))`, "nb_predict x :="},
	{"in a subquery", `SELECT * FROM (SELECT nb_predict('m', x := 1) AS p) s`, "nb_predict x :="},
	{"create table as", `CREATE TABLE o AS SELECT nb_predict('m', x := 1)`, "nb_predict x :="},
	{"update", `UPDATE t SET p = nb_predict('m', x => x)`, "nb_predict x =>"},
	{"second statement", `SELECT 1; SELECT nb_predict('m', x := 1)`, "nb_predict x :="},
	{"struct_pack inside", `SELECT nb_predict('m', struct_pack(x := 1, y := 2))`, ""},
	{"struct literal", `SELECT nb_predict('m', {'x': 1})`, ""},
	{"list of structs", `SELECT nb_predict('m', [{'x': 1}][1])`, ""},
	{"positional", `SELECT nb_predict('m', 1, 2), nb_predict('m', t) FROM t`, ""},
	{"other function", `SELECT struct_pack(x := 1), nb_train_thing(x := 1)`, ""},
	{"table function options", `SELECT * FROM nb_train('m', 't', 'y', alpha := 1)`, ""},
	{"after the call", `SELECT nb_predict('m', x) AS p, struct_pack(x := 1)`, ""},
	{"in a string", `SELECT 'nb_predict(''m'', x := 1)', E'nb_predict(\'m\', x := 1)'`, ""},
	{"in a dollar string", `SELECT $q$nb_predict('m', x := 1)$q$`, ""},
	{"in a comment", "SELECT 1 -- nb_predict('m', x := 1)\n/* nb_predict('m', x => 1) */", ""},
	{"in a quoted name", `SELECT 1 AS "nb_predict('m', x := 1)"`, ""},
	{"comparison", `SELECT nb_predict('m', x >= 1, y <= 2, z = 3)`, ""},
	{"cast", `SELECT nb_predict('m', x::DOUBLE)`, ""},
	{"parameter", `SELECT nb_predict('m', $x, ?)`, ""},
	{"unicode space before :=", "SELECT nb_predict('m', x\u00a0:= 1)", "nb_predict x :="},
	{"in an escape string with a doubled quote", `SELECT E'it''s \' nb_predict(''m'', x := 1)'`, ""},
}

// TestNamedArgumentTokens: namedArgument finds a scoring call's named argument in any statement and nowhere
// else (namedArgumentCases).
func TestNamedArgumentTokens(t *testing.T) {
	for _, c := range namedArgumentCases {
		if got := strings.TrimSpace(strings.Join(sliceOf(namedArgument(lexSQL(c.text))), " ")); got != c.want {
			t.Errorf("%s: %s: got %q, want %q", c.name, c.text, got, c.want)
		}
	}
}

func sliceOf(a, b, c string) []string { return []string{a, b, c} }

// FuzzNamedArgumentsAsParsed: wherever DuckDB's own parser can show its tree (json_serialize_sql, for
// SELECT statements), the tokens find a named argument of a scoring call exactly when the tree has one
// (a child of the call with an alias), and name one the tree has.
func FuzzNamedArgumentsAsParsed(f *testing.F) {
	for _, c := range namedArgumentCases {
		f.Add(c.text)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, text string) {
		var out string
		if err := db.QueryRow(`SELECT CAST(json_serialize_sql($1::VARCHAR) AS VARCHAR)`, text).Scan(&out); err != nil {
			return // not valid UTF-8, or the like: DuckDB would not run it either
		}
		var tree struct {
			Error      bool
			Statements any
		}
		if err := json.Unmarshal([]byte(out), &tree); err != nil {
			t.Fatalf("%q: json_serialize_sql gave %q: %v", text, out, err)
		}
		if tree.Error {
			return // not a SELECT, or not SQL
		}
		parsed := map[string]bool{}
		parsedNamedArguments(tree.Statements, parsed)
		function, arg, _ := namedArgument(lexSQL(text))
		if (function != "") != (len(parsed) > 0) || function != "" && !parsed[function+" "+arg] {
			t.Fatalf("%q: the tokens give %q %q; DuckDB's parse tree %v", text, function, arg, parsed)
		}
	})
}

// parsedNamedArguments adds to found "function argument" for each call of a scoring function in a
// json_serialize_sql tree whose argument has a name (1.5: an alias, which DuckDB keeps there, then ignores;
// 2.0: the argument's name, which DuckDB matches to the function's parameter names).
func parsedNamedArguments(n any, found map[string]bool) {
	switch v := n.(type) {
	case map[string]any:
		if f, ok := v["function_name"].(string); ok && scoringFunctions[strings.ToLower(f)] {
			// DuckDB 1.5 lists the arguments as children, a named one with an alias; 2.0 as arguments
			// with a name.
			children, _ := v["children"].([]any)
			for _, ch := range children {
				if m, ok := ch.(map[string]any); ok {
					if a, ok := m["alias"].(string); ok && a != "" {
						found[strings.ToLower(f)+" "+a] = true
					}
				}
			}
			arguments, _ := v["arguments"].([]any)
			for _, arg := range arguments {
				if m, ok := arg.(map[string]any); ok {
					if a, ok := m["name"].(string); ok && a != "" {
						found[strings.ToLower(f)+" "+a] = true
					}
				}
			}
		}
		for _, x := range v {
			parsedNamedArguments(x, found)
		}
	case []any:
		for _, x := range v {
			parsedNamedArguments(x, found)
		}
	}
}

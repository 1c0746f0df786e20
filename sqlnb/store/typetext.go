package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// knownTypes are the type texts checkTypeText accepted in this process (DuckDB's answer does not change).
var knownTypes sync.Map

// checkTypeText reports whether text is a DuckDB type and nothing else, as DuckDB parses and binds it:
// the type texts a model stores (label_type, each feature's type, the group columns' types) come from
// DuckDB's DESCRIBE, but a model JSON or a hand-edited store may hold anything, and the texts are shown in
// messages and advice. DuckDB parses a cast of NULL to the text without running it (json_serialize_sql);
// the tree must be that cast alone — one SELECT of one CAST of the NULL constant to a type whose arguments
// are constants, from nothing — and then DuckDB binds the type (an unknown name is refused).
func checkTypeText(ctx context.Context, q nb.Querier, what, text string) error {
	if _, ok := knownTypes.Load(text); ok {
		return nil
	}
	bad := func(why string) error {
		return fmt.Errorf("%w: %s %q is not a DuckDB type (%s): correct it (a model's types are those of the columns it was trained on, as DESCRIBE shows them)",
			nb.ErrInvalidModel, what, text, why)
	}
	var tree string
	if err := q.QueryRowContext(ctx, queries.SQL("type_parse.sql"), text).Scan(&tree); err != nil {
		return err
	}
	var parsed struct {
		Error        bool   `json:"error"`
		ErrorMessage string `json:"error_message"`
		Statements   []struct {
			Node map[string]any `json:"node"`
		} `json:"statements"`
	}
	if err := json.Unmarshal([]byte(tree), &parsed); err != nil {
		return err
	}
	if parsed.Error {
		if strings.Contains(parsed.ErrorMessage, "Only SELECT") { // a second statement
			return bad("more than a type")
		}
		return bad(parsed.ErrorMessage)
	}
	if len(parsed.Statements) != 1 || !castOfNullAlone(parsed.Statements[0].Node) {
		return bad("more than a type")
	}
	stmt, err := queries.Render("type_name.tmpl.sql", queries.TypeName{Type: text})
	if err != nil {
		return err
	}
	var name string
	if err := q.QueryRowContext(ctx, stmt).Scan(&name); err != nil {
		return bad(err.Error())
	}
	knownTypes.Store(text, true)
	return nil
}

// castOfNullAlone reports whether a json_serialize_sql SELECT node is SELECT CAST(NULL AS type) and nothing
// else. DuckDB 1.5 writes the type as cast_type (data), 2.0 as type_expr (an expression whose children are
// the type's arguments): both must hold constants only.
func castOfNullAlone(n map[string]any) bool {
	if n["type"] != "SELECT_NODE" || n["where_clause"] != nil || n["having"] != nil || n["qualify"] != nil || n["sample"] != nil {
		return false
	}
	for _, k := range []string{"modifiers", "group_expressions", "group_sets"} {
		if l, _ := n[k].([]any); len(l) > 0 {
			return false
		}
	}
	if cte, _ := n["cte_map"].(map[string]any); cte != nil {
		if l, _ := cte["map"].([]any); len(l) > 0 {
			return false
		}
	}
	if from, _ := n["from_table"].(map[string]any); from == nil || from["type"] != "EMPTY" {
		return false
	}
	list, _ := n["select_list"].([]any)
	if len(list) != 1 {
		return false
	}
	cast, _ := list[0].(map[string]any)
	if cast == nil || cast["class"] != "CAST" || cast["try_cast"] != false {
		return false
	}
	child, _ := cast["child"].(map[string]any)
	if child == nil || child["class"] != "CONSTANT" {
		return false
	}
	if te, ok := cast["type_expr"]; ok {
		return onlyTypesAndConstants(te)
	}
	_, ok := cast["cast_type"].(map[string]any)
	return ok
}

// onlyTypesAndConstants reports whether every expression in a parse tree is a TYPE or a CONSTANT.
func onlyTypesAndConstants(x any) bool {
	switch v := x.(type) {
	case map[string]any:
		if c, ok := v["class"]; ok && c != "TYPE" && c != "CONSTANT" {
			return false
		}
		for _, e := range v {
			if !onlyTypesAndConstants(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !onlyTypesAndConstants(e) {
				return false
			}
		}
	}
	return true
}

// checkTypes checks every type text m stores (checkTypeText).
func checkTypes(ctx context.Context, q nb.Querier, m *nb.Model) error {
	if err := checkTypeText(ctx, q, fmt.Sprintf("model %q: label type", m.Name), m.LabelType); err != nil {
		return err
	}
	for _, f := range m.Features {
		if f.Type == "" {
			continue // a feature stored before types were kept
		}
		if err := checkTypeText(ctx, q, fmt.Sprintf("model %q: feature %q has type", m.Name, f.Name), f.Type); err != nil {
			return err
		}
	}
	for _, g := range m.By {
		if err := checkTypeText(ctx, q, fmt.Sprintf("model %q: group column %q has type", m.Name, g.Name), g.Type); err != nil {
			return err
		}
	}
	return nil
}

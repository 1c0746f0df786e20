package sqlnb

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// safeType matches the DuckDB type names that may be written into a CAST (DECIMAL(18,3), DATE, TIMESTAMP WITH
// TIME ZONE, HUGEINT, UUID, ...): letters, digits, spaces, and a parenthesised list of numbers.
var safeType = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\([0-9]+( ?, ?[0-9]+)?\))?$`)

// orderLabels returns the union of the class label lists (each in model order) in the order of the label
// type, which is the order training gives classes (ORDER BY label): numbers by value, text byte by byte,
// ENUM by position; other types are cast in DuckDB. A type it cannot compare keeps the lists' order of
// first appearance.
func orderLabels(ctx context.Context, q nb.Querier, labelType string, lists ...[]string) ([]string, error) {
	var all []string
	for _, l := range lists {
		for _, s := range l {
			all = nb.AppendNew(all, s)
		}
	}
	typ := strings.ToUpper(strings.TrimSpace(labelType))
	if parse, ok := nb.LabelTypes[typ]; ok {
		vals := make([]any, len(all))
		for i, s := range all {
			v, err := parse(s)
			if err != nil {
				return all, nil // a hand-edited label: keep the order of appearance
			}
			vals[i] = v
		}
		idx := make([]int, len(all))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return lessValue(vals[idx[a]], vals[idx[b]]) })
		out := make([]string, len(all))
		for i, j := range idx {
			out[i] = all[j]
		}
		return out, nil
	}
	if levels, ok := nb.EnumLevels(labelType); ok {
		pos := map[string]int{}
		for i, v := range levels {
			pos[v] = i
		}
		out := slices.Clone(all)
		sort.SliceStable(out, func(a, b int) bool { return pos[out[a]] < pos[out[b]] })
		return out, nil
	}
	if !safeType.MatchString(labelType) {
		return all, nil
	}
	stmt, err := queries.Render("order_labels.tmpl.sql", queries.TypeName{Type: labelType})
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, stmt, all)
	if err != nil {
		return all, nil // labels that do not cast back: keep the order of appearance
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if rows.Err() != nil || len(out) != len(all) {
		return all, nil
	}
	return out, nil
}

// lessValue orders two label values of one Go type (LabelValues' types): numbers by value, false before
// true, text byte by byte (DuckDB's default collation).
func lessValue(a, b any) bool {
	switch x := a.(type) {
	case int64:
		return x < b.(int64)
	case uint64:
		return x < b.(uint64)
	case float64:
		return x < b.(float64)
	case bool:
		return !x && b.(bool)
	case string:
		return x < b.(string)
	}
	return false
}

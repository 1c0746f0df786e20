package sqlnb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/sqlnb/sqlnb/queries"
)

// Stats holds a model's statistics by table name: each value is a slice of that table's row type
// ([]GaussianStat for "gaussian", ...). Families read theirs with rowsOf.
type Stats map[string]any

// rowKey identifies a statistics row within its table: feature, class and, where the table has one, the
// value or term.
type rowKey struct{ Feature, Class, Value string }

// Table is one kind of statistics row a family keeps per model: nb.<Name> in the store (one column per
// field of T, named by its json tag), the key <Name> in model JSON. Rows of disjoint training sets with the
// same key combine exactly with Merge; Check rejects a row no training could have produced.
type Table[T any] struct {
	Name string
	// Key identifies a row; rows of one model have distinct keys.
	Key func(*T) rowKey
	// Merge adds src (statistics of rows disjoint from dst's) into dst.
	Merge func(dst, src *T)
	// Check returns why a row is invalid (negative counts, non-finite sums...), or nil.
	Check func(*T) error
	// ModelRows: rows with an empty feature belong to the model as a whole (a logistic regression's
	// intercepts).
	ModelRows bool
}

// table is the untyped view of a Table the store, JSON codec, validation and merge use.
type table interface {
	tableName() string
	columns() []tableColumn
	decode(raw json.RawMessage) (any, error)
	validate(m *Model, rows any, known map[string]bool) error
	merge(parts []any) any
	insertArgs(rows any) []any
	load(rows *sql.Rows, model string) (any, error)
	size(rows any) int
}

type tableColumn struct {
	Name, Type string
	field      int
}

// StatRows returns m's statistics rows of table t (GaussianTable, CategoricalTable, ...).
func StatRows[T any](m *Model, t *Table[T]) []T { return rowsOf(m, t) }

// rowsOf returns m's rows of table t.
func rowsOf[T any](m *Model, t *Table[T]) []T {
	if m.Stats == nil {
		return nil
	}
	rows, _ := m.Stats[t.Name].([]T)
	return rows
}

// addRows appends rows to s's rows of table t.
func addRows[T any](s Stats, t *Table[T], rows ...T) {
	have, _ := s[t.Name].([]T)
	s[t.Name] = append(have, rows...)
}

func (t *Table[T]) tableName() string { return t.Name }

func (t *Table[T]) columns() []tableColumn {
	var out []tableColumn
	typ := reflect.TypeFor[T]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := bytes.Cut([]byte(f.Tag.Get("json")), []byte(","))
		if len(name) == 0 || string(name) == "-" {
			continue
		}
		c := tableColumn{Name: string(name), field: i}
		switch f.Type.Kind() {
		case reflect.String:
			c.Type = "VARCHAR"
		case reflect.Int64:
			c.Type = "BIGINT"
		case reflect.Float64:
			c.Type = "DOUBLE"
		default:
			panic(fmt.Sprintf("sqlnb: table %s: field %s has unsupported type %s", t.Name, f.Name, f.Type))
		}
		out = append(out, c)
	}
	return out
}

func (t *Table[T]) decode(raw json.RawMessage) (any, error) {
	var rows []T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		return nil, err
	}
	return rows, nil
}

func (t *Table[T]) size(rows any) int {
	r, _ := rows.([]T)
	return len(r)
}

// validate checks every row: its feature is one of known (features whose family keeps this table), its class
// is a class of m, its key is unique and Check accepts it.
func (t *Table[T]) validate(m *Model, rows any, known map[string]bool) error {
	classes := map[string]bool{}
	for _, c := range m.Classes {
		classes[c.Label] = true
	}
	seen := map[rowKey]bool{}
	for i, r := range rows.([]T) {
		k := t.Key(&r)
		switch {
		case k.Feature == "" && t.ModelRows && len(known) > 0:
		case !known[k.Feature]:
			return invalidRow(m, t.Name, i, "feature %q has no %s statistics", k.Feature, t.Name)
		case !classes[k.Class]:
			return invalidRow(m, t.Name, i, "unknown class %q", k.Class)
		case seen[k]:
			return invalidRow(m, t.Name, i, "a second row for feature %q, class %q%s", k.Feature, k.Class, valueSuffix(k.Value))
		}
		seen[k] = true
		if t.Check != nil {
			if err := t.Check(&r); err != nil {
				return invalidRow(m, t.Name, i, "feature %q, class %q%s: %v", k.Feature, k.Class, valueSuffix(k.Value), err)
			}
		}
	}
	return nil
}

func valueSuffix(v string) string {
	if v == "" {
		return ""
	}
	return fmt.Sprintf(", value %q", v)
}

func invalidRow(m *Model, table string, row int, format string, args ...any) error {
	return fmt.Errorf("%w: model %q, table nb.%s row %d: %s", ErrInvalidModel, m.Name, table, row+1, fmt.Sprintf(format, args...))
}

// merge combines the rows of disjoint parts by key (first-seen order).
func (t *Table[T]) merge(parts []any) any {
	idx := map[rowKey]int{}
	var out []T
	for _, p := range parts {
		rows, _ := p.([]T)
		for _, r := range rows {
			k := t.Key(&r)
			if i, ok := idx[k]; ok {
				t.Merge(&out[i], &r)
				continue
			}
			idx[k] = len(out)
			out = append(out, r)
		}
	}
	return out
}

// insertArgs returns one list per column, in column order.
func (t *Table[T]) insertArgs(rows any) []any {
	rs := rows.([]T)
	cols := t.columns()
	args := make([]any, len(cols))
	for c, col := range cols {
		switch col.Type {
		case "VARCHAR":
			v := make([]string, len(rs))
			for i := range rs {
				v[i] = reflect.ValueOf(&rs[i]).Elem().Field(col.field).String()
			}
			args[c] = v
		case "BIGINT":
			v := make([]int64, len(rs))
			for i := range rs {
				v[i] = reflect.ValueOf(&rs[i]).Elem().Field(col.field).Int()
			}
			args[c] = v
		default:
			v := make([]float64, len(rs))
			for i := range rs {
				v[i] = reflect.ValueOf(&rs[i]).Elem().Field(col.field).Float()
			}
			args[c] = v
		}
	}
	return args
}

// load scans the rows of a store query over the table's columns; a NULL is an invalid model.
func (t *Table[T]) load(rows *sql.Rows, model string) (any, error) {
	cols := t.columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []T
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var r T
		rv := reflect.ValueOf(&r).Elem()
		for c, col := range cols {
			f := rv.Field(col.field)
			switch v := vals[c].(type) {
			case nil:
				return nil, fmt.Errorf("%w: model %q, table nb.%s row %d: %s is NULL", ErrInvalidModel, model, t.Name, len(out)+1, col.Name)
			case string:
				f.SetString(v)
			case int64:
				if f.Kind() == reflect.Float64 {
					f.SetFloat(float64(v))
				} else {
					f.SetInt(v)
				}
			case int32:
				f.SetInt(int64(v))
			case float64:
				if f.Kind() == reflect.Int64 {
					f.SetInt(int64(v))
				} else {
					f.SetFloat(v)
				}
			default:
				return nil, fmt.Errorf("table nb.%s column %s: unexpected %T", t.Name, col.Name, v)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// allTables lists every registered statistics table once, by name.
var allTables = func() []table {
	seen := map[string]bool{}
	var out []table
	for _, f := range families {
		for _, t := range f.Tables() {
			if !seen[t.tableName()] {
				seen[t.tableName()] = true
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].tableName() < out[b].tableName() })
	return out
}()

func tableByName(name string) table {
	for _, t := range allTables {
		if t.tableName() == name {
			return t
		}
	}
	return nil
}

// validateStats checks every statistics row of m (Table.validate) and that m holds no table none of its
// features keeps.
func validateStats(m *Model) error {
	known := map[string]map[string]bool{}
	for _, f := range m.Features {
		fam := familyOf[f.Kind]
		if fam == nil {
			continue
		}
		for _, t := range fam.Tables() {
			if known[t.tableName()] == nil {
				known[t.tableName()] = map[string]bool{}
			}
			known[t.tableName()][f.Name] = true
		}
	}
	for _, name := range sortedKeys(m.Stats) {
		t := tableByName(name)
		if t == nil {
			return fmt.Errorf("%w: model %q: unknown statistics %q", ErrInvalidModel, m.Name, name)
		}
		if err := t.validate(m, m.Stats[name], known[name]); err != nil {
			return err
		}
	}
	return nil
}

// saveStats inserts m's statistics rows, one statement per table.
func saveStats(ctx context.Context, tx Querier, m *Model) error {
	for _, t := range allTables {
		rows, ok := m.Stats[t.tableName()]
		if !ok || t.size(rows) == 0 {
			continue
		}
		stmt, err := queries.Render("store_insert_stats.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, stmt, append([]any{m.Name}, t.insertArgs(rows)...)...); err != nil {
			return fmt.Errorf("store %s statistics: %w", t.tableName(), err)
		}
	}
	return nil
}

// loadStats reads the statistics rows of model name from every table.
func loadStats(ctx context.Context, q Querier, name string) (Stats, error) {
	s := Stats{}
	for _, t := range allTables {
		stmt, err := queries.Render("store_load_stats.tmpl.sql", tableData(t))
		if err != nil {
			return nil, err
		}
		rows, err := q.QueryContext(ctx, stmt, name)
		if err != nil {
			return nil, fmt.Errorf("load model %q: %w", name, err)
		}
		got, err := t.load(rows, name)
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("load model %q: %w", name, err)
		}
		if t.size(got) > 0 {
			s[t.tableName()] = got
		}
	}
	return s, nil
}

func tableData(t table) map[string]any {
	return map[string]any{"Name": t.tableName(), "Columns": t.columns()}
}

// mergeStats combines the statistics of disjoint parts table by table.
func mergeStats(parts []Stats) Stats {
	out := Stats{}
	for _, t := range allTables {
		var rows []any
		for _, p := range parts {
			if r, ok := p[t.tableName()]; ok {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			out[t.tableName()] = t.merge(rows)
		}
	}
	return out
}

package nb

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Stats holds a model's statistics by table name: each value is a slice of that table's row type
// ([]GaussianStat for "gaussian", ...). Families read theirs with rowsOf.
type Stats map[string]any

// rowKey identifies a statistics row within its table: feature, class and, where the table has one, the
// value or term.
type RowKey struct{ Feature, Class, Value string }

// Table is one kind of statistics row a family keeps per model: nb.<Name> in the store (one column per
// field of T, named by its json tag), the key <Name> in model JSON. Rows of disjoint training sets with the
// same key combine exactly with Merge; Check rejects a row no training could have produced.
type Table[T any] struct {
	Name string
	// Key identifies a row; rows of one model have distinct keys.
	Key func(*T) RowKey
	// Merge adds src (statistics of rows disjoint from dst's) into dst.
	Merge func(dst, src *T)
	// Subtract removes src (statistics of rows that dst counts) from dst: Merge's inverse, so that
	// Subtract(Merge(a, b), b) = a. It returns why it cannot (a count below zero, a second moment below
	// zero beyond rounding: see forgetTolerance); the caller names the model, feature and class.
	Subtract func(dst, src *T) error
	// Empty reports whether a row counts no training row (after Subtract): training produces no such row,
	// so it is dropped. nil: rows are kept as long as their class is.
	Empty func(*T) bool
	// Check returns why a row is invalid (negative counts, non-finite sums...), or nil.
	Check func(*T) error
	// Rows, if set, says how many training rows (and their weight) a row counts: at most its class's, and
	// equal to each other in a model without a weight column.
	Rows func(*T) (count int64, weight float64)
	// Moments, if set, returns a row's unweighted and weighted moments, which a model without a weight
	// column (and without EM's fractional rows) must have equal: scoring reads the weighted ones.
	Moments func(*T) (unweighted, weighted []float64)
	// ModelRows: rows with an empty feature belong to the model as a whole (a logistic regression's
	// intercepts).
	ModelRows bool
}

// statsTable is the untyped view of a Table the store, JSON codec, validation and merge use.
type StatsTable interface {
	TableName() string
	Columns() []tableColumn
	decode(raw json.RawMessage) (any, error)
	validate(m *Model, rows any, known map[string]bool) error
	merge(parts []any) any
	subtract(m *Model, have, minus any, gone map[string]bool) (any, error)
	InsertArgs(rows any) []any
	Concat(parts []any) any
	Source(rows any) func(dst []driver.Value) bool
	LoadGroups(rows Rows, model string) (map[int64]any, error)
	Size(rows any) int
	CountRows(rows any, into map[string]int64) bool
	RenameFeatures(rows any, to map[string]string)
}

type tableColumn struct {
	Name, Type string
	field      int
}

// StatRows returns m's statistics rows of table t (GaussianTable, CategoricalTable, ...).
func StatRows[T any](m *Model, t *Table[T]) []T { return RowsOf(m, t) }

// rowsOf returns m's rows of table t.
func RowsOf[T any](m *Model, t *Table[T]) []T {
	if m.Stats == nil {
		return nil
	}
	rows, _ := m.Stats[t.Name].([]T)
	return rows
}

// rowsByFeature groups m's rows of table t by feature: subslices of the stored rows when each feature's rows
// are contiguous (as training and the store give them, so millions of rows are not copied), else copies.
func RowsByFeature[T any](m *Model, t *Table[T]) map[string][]T {
	rows := RowsOf(m, t)
	out := map[string][]T{}
	start := 0
	for i := 1; i <= len(rows); i++ {
		if i < len(rows) && t.Key(&rows[i]).Feature == t.Key(&rows[start]).Feature {
			continue
		}
		f := t.Key(&rows[start]).Feature
		if _, again := out[f]; again {
			goto copyAll
		}
		out[f] = rows[start:i:i]
		start = i
	}
	return out
copyAll:
	out = map[string][]T{}
	for _, r := range rows {
		f := t.Key(&r).Feature
		out[f] = append(out[f], r)
	}
	return out
}

// addRows appends rows to s's rows of table t.
func AddRows[T any](s Stats, t *Table[T], rows ...T) {
	have, _ := s[t.Name].([]T)
	s[t.Name] = append(have, rows...)
}

func (t *Table[T]) TableName() string { return t.Name }

func (t *Table[T]) Columns() []tableColumn {
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

// renameFeatures renames, in rows, every feature name that to maps (the columns "feature" and "other").
func (t *Table[T]) RenameFeatures(rows any, to map[string]string) {
	rs, _ := rows.([]T)
	var fields []int
	for _, c := range t.Columns() {
		if c.Name == "feature" || c.Name == "other" {
			fields = append(fields, c.field)
		}
	}
	for i := range rs {
		v := reflect.ValueOf(&rs[i]).Elem()
		for _, f := range fields {
			if n, ok := to[v.Field(f).String()]; ok {
				v.Field(f).SetString(n)
			}
		}
	}
}

func (t *Table[T]) decode(raw json.RawMessage) (any, error) {
	// A null would decode as the zero value (an empty category, a mean of 0): refuse it.
	var generic []map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	for i, r := range generic {
		for k, v := range r {
			if v == nil {
				return nil, fmt.Errorf("row %d: %s is null", i+1, k)
			}
		}
	}
	var rows []T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		return nil, err
	}
	return rows, nil
}

func (t *Table[T]) Size(rows any) int {
	r, _ := rows.([]T)
	return len(r)
}

// countRows adds, per feature, the training rows the table's rows count (Rows) to into, and reports whether
// the table counts rows at all.
func (t *Table[T]) CountRows(rows any, into map[string]int64) bool {
	if t.Rows == nil {
		return false
	}
	r, _ := rows.([]T)
	for i := range r {
		n, _ := t.Rows(&r[i])
		into[t.Key(&r[i]).Feature] += n
	}
	return true
}

// validate checks every row: its feature is one of known (features whose family keeps this table), its class
// is a class of m, its key is unique and Check accepts it.
func (t *Table[T]) validate(m *Model, rows any, known map[string]bool) error {
	classes := map[string]bool{}
	class := map[string]Class{}
	for _, c := range m.Classes {
		classes[c.Label] = true
		class[c.Label] = c
	}
	rs := rows.([]T)
	sorted := keysAscending(rs, t.Key)
	var seen map[RowKey]struct{}
	if !sorted {
		seen = make(map[RowKey]struct{}, len(rs))
	}
	lastFeature, lastClass := "\x00", "\x00" // rows come grouped: look a name up once per run
	for i := range rs {
		k := t.Key(&rs[i])
		if k.Feature != lastFeature {
			if !known[k.Feature] && !(k.Feature == "" && t.ModelRows && len(known) > 0) {
				return InvalidRow(m, t.Name, i, "feature %q has no %s statistics", k.Feature, t.Name)
			}
			lastFeature = k.Feature
		}
		if k.Class != lastClass {
			if !classes[k.Class] {
				return InvalidRow(m, t.Name, i, "unknown class %q", k.Class)
			}
			lastClass = k.Class
		}
		if !sorted {
			if _, dup := seen[k]; dup {
				return InvalidRow(m, t.Name, i, "a second row for feature %q, class %q%s", k.Feature, k.Class, valueSuffix(k.Value))
			}
			seen[k] = struct{}{}
		}
		if t.Check != nil {
			if err := t.Check(&rs[i]); err != nil {
				return &RowError{model: m.Name, table: t.Name, row: i, Detail: fmt.Sprintf("feature %q, class %q%s", k.Feature, k.Class, valueSuffix(k.Value)), Err: err}
			}
		}
		if t.Rows != nil {
			n, w := t.Rows(&rs[i])
			c := class[k.Class]
			switch {
			// Semi-supervised models count each unlabelled row in every class (Model.UnlabelledRows).
			case (n > c.Count && m.UnlabelledRows == 0) || w > c.Weight*(1+1e-9):
				return &RowError{model: m.Name, table: t.Name, row: i, Detail: fmt.Sprintf("feature %q, class %q%s", k.Feature, k.Class, valueSuffix(k.Value)),
					Err: fmt.Errorf("%w: it counts %d rows of weight %v, more than the class's %d and %v", ErrBeyondClass, n, w, c.Count, c.Weight)}
			case m.Weight == "" && m.UnlabelledRows == 0 && w != float64(n):
				return InvalidRow(m, t.Name, i, "feature %q, class %q%s: weight %v but %d rows, in a model without a weight column",
					k.Feature, k.Class, valueSuffix(k.Value), w, n)
			}
		}
		if t.Moments != nil && m.Weight == "" && m.UnlabelledRows == 0 {
			u, w := t.Moments(&rs[i])
			for j := range u {
				// Training, merge and forget give equal bits; 1e-12 leaves room for models written elsewhere.
				if math.Abs(u[j]-w[j]) > 1e-12*math.Max(math.Abs(u[j]), math.Abs(w[j])) {
					return InvalidRow(m, t.Name, i, "feature %q, class %q%s: weighted moment %v differs from the unweighted %v, "+
						"in a model without a weight column (they must be equal)", k.Feature, k.Class, valueSuffix(k.Value), w[j], u[j])
				}
			}
		}
	}
	return nil
}

// keysAscending reports whether rows come in runs of one feature each (in any order of features) with
// (value, class) strictly ascending within a run — as training scans and the store give them: then keys are
// unique without a map.
func keysAscending[T any](rows []T, key func(*T) RowKey) bool {
	done := map[string]bool{}
	for i := 1; i < len(rows); i++ {
		a, b := key(&rows[i-1]), key(&rows[i])
		if a.Feature != b.Feature {
			done[a.Feature] = true
			if done[b.Feature] {
				return false
			}
			continue
		}
		if c := strings.Compare(a.Value, b.Value); c > 0 || (c == 0 && a.Class >= b.Class) {
			return false
		}
	}
	return true
}

func valueSuffix(v string) string {
	if v == "" {
		return ""
	}
	return fmt.Sprintf(", value %q", v)
}

// rowError is a statistics row that Check refused: ErrInvalidModel, and err (errNotFinite for a sum that
// overflowed).
type RowError struct {
	model, table, Detail string
	row                  int
	Err                  error
}

func (e *RowError) Error() string {
	return fmt.Sprintf("%v: model %q, table nb.%s row %d: %s: %v", ErrInvalidModel, e.model, e.table, e.row+1, e.Detail, e.Err)
}

func (e *RowError) Unwrap() []error { return []error{ErrInvalidModel, e.Err} }

// errBeyondClass: a statistics row counts more rows than its class.
var ErrBeyondClass = errors.New("more rows than the class")

// errNotFinite: a statistic is infinite or NaN.
var ErrNotFinite = errors.New("a statistic is not finite")

func InvalidRow(m *Model, table string, row int, format string, args ...any) error {
	return fmt.Errorf("%w: model %q, table nb.%s row %d: %s", ErrInvalidModel, m.Name, table, row+1, fmt.Sprintf(format, args...))
}

// merge combines the rows of disjoint parts by key (first-seen order).
func (t *Table[T]) merge(parts []any) any {
	idx := map[RowKey]int{}
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

// subtract removes the rows minus (statistics of rows that m counted) from have, m's rows, by key with
// Subtract; rows of the classes in gone and rows left Empty are dropped. A row of minus that m lacks is an
// error unless it is Empty (it counts nothing).
func (t *Table[T]) subtract(m *Model, have, minus any, gone map[string]bool) (any, error) {
	rows, _ := have.([]T)
	out := append([]T(nil), rows...)
	idx := make(map[RowKey]int, len(out))
	for i := range out {
		idx[t.Key(&out[i])] = i
	}
	sub, _ := minus.([]T)
	for i := range sub {
		r := &sub[i]
		k := t.Key(r)
		j, ok := idx[k]
		if !ok {
			if t.Empty != nil && t.Empty(r) {
				continue
			}
			return nil, fmt.Errorf("%w: model %q, class %q, feature %q%s: the rows to forget hold statistics the model never counted "+
				"(they were not trained into it)", ErrCannotForget, m.Name, k.Class, k.Feature, valueSuffix(k.Value))
		}
		if err := t.Subtract(&out[j], r); err != nil {
			return nil, fmt.Errorf("%w: model %q, class %q, feature %q%s: %v", ErrCannotForget, m.Name, k.Class, k.Feature, valueSuffix(k.Value), err)
		}
	}
	kept := out[:0]
	for i := range out {
		if gone[t.Key(&out[i]).Class] || (t.Empty != nil && t.Empty(&out[i])) {
			continue
		}
		kept = append(kept, out[i])
	}
	return kept, nil
}

// concat appends the rows of parts into one slice.
func (t *Table[T]) Concat(parts []any) any {
	var out []T
	for _, p := range parts {
		out = append(out, p.([]T)...)
	}
	return out
}

// insertArgs returns one list per column, in column order.
func (t *Table[T]) InsertArgs(rows any) []any {
	rs := rows.([]T)
	cols := t.Columns()
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

// source returns a function that writes the next row's values (column order) into dst, false when done.
func (t *Table[T]) Source(rows any) func(dst []driver.Value) bool {
	rs := rows.([]T)
	cols := t.Columns()
	i := 0
	return func(dst []driver.Value) bool {
		if i == len(rs) {
			return false
		}
		v := reflect.ValueOf(&rs[i]).Elem()
		for c, col := range cols {
			f := v.Field(col.field)
			switch col.Type {
			case "VARCHAR":
				dst[c] = f.String()
			case "BIGINT":
				dst[c] = f.Int()
			default:
				dst[c] = f.Float()
			}
		}
		i++
		return true
	}
}

// loadGroups scans the rows of a store query over the group id then the table's columns, ordered by group
// id, into one slice of rows per group; a NULL is an invalid model.
func (t *Table[T]) LoadGroups(rows Rows, model string) (map[int64]any, error) {
	cols := t.Columns()
	vals := make([]any, len(cols))
	var group int64
	ptrs := make([]any, len(cols)+1)
	ptrs[0] = &group
	for i := range vals {
		ptrs[i+1] = &vals[i]
	}
	var out []T
	if l, ok := rows.(interface{ Len() int }); ok {
		out = make([]T, 0, l.Len())
	}
	byGroup := map[int64]any{}
	start, last := 0, int64(-1)
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if group != last {
			if len(out) > start {
				byGroup[last] = out[start:len(out):len(out)]
			}
			start, last = len(out), group
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
	if len(out) > start {
		byGroup[last] = out[start:len(out):len(out)]
	}
	return byGroup, rows.Err()
}

// Rows is a query result read row by row: *sql.Rows, or the materialised result of a RowReader.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// The fast paths a driver connection (database/sql/driver.Conn) may offer as optional interfaces; package
// udf's connections offer all three, reading and writing DuckDB's data chunks directly. Without them, or
// when one returns ErrFallback, sqlnb uses database/sql. Inside a transaction (*sql.Tx) it uses
// database/sql too.

// RowReaderConn runs a query and returns its whole result (statistics scans and model loads).
type RowReaderConn interface {
	ReadRows(ctx context.Context, query string, args []any) (Rows, error)
}

// NumberStreamConn runs query and calls each with every chunk of its result, in order, as one []float64
// per column (BOOLEAN as 0 or 1, integers converted), valid only during the call. The result streams: a
// scan holds a chunk at a time (a large ORDER BY should go into a table first; readRanking).
type NumberStreamConn interface {
	StreamNumbers(ctx context.Context, query string, args []any, each func(cols [][]float64) error) error
}

// RowAppenderConn appends rows to schema.table inside the transaction open on the connection: next writes
// the next row's values (in the order of columns) into dst and returns false when there are no more.
type RowAppenderConn interface {
	AppendRows(ctx context.Context, schema, table string, columns []string, next func(dst []driver.Value) bool) error
}

// ErrFallback is what a fast path returns for a query it cannot run: sqlnb uses database/sql instead.
var ErrFallback = errors.New("use database/sql")

// onDriverConn runs f with the driver connection of a connection of q (*sql.Conn, or one taken from a
// *sql.DB); ErrFallback when q is neither.
func onDriverConn(ctx context.Context, q Querier, f func(dc any) error) error {
	switch d := q.(type) {
	case *sql.Conn:
		return d.Raw(f)
	case interface {
		Conn(context.Context) (*sql.Conn, error)
	}:
		c, err := d.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		return c.Raw(f)
	}
	return ErrFallback
}

// QueryRows runs query through the driver connection's RowReaderConn when it has one, else through
// database/sql.
func QueryRows(ctx context.Context, q Querier, query string, args ...any) (Rows, error) {
	var rows Rows
	err := onDriverConn(ctx, q, func(dc any) error {
		r, ok := dc.(RowReaderConn)
		if !ok {
			return ErrFallback
		}
		var err error
		rows, err = r.ReadRows(ctx, query, args)
		return err
	})
	if err == nil || !errors.Is(err, ErrFallback) {
		return rows, err
	}
	return q.QueryContext(ctx, query, args...)
}

// AppendRows appends rows to schema.table through conn's RowAppenderConn; ErrFallback when it has none.
func AppendRows(ctx context.Context, conn *sql.Conn, schema, table string, columns []string, next func(dst []driver.Value) bool) error {
	return conn.Raw(func(dc any) error {
		a, ok := dc.(RowAppenderConn)
		if !ok {
			return ErrFallback
		}
		return a.AppendRows(ctx, schema, table, columns, next)
	})
}

// StreamNumbers runs query through conn's NumberStreamConn when it has one, else through database/sql
// (chunks of up to 2048 rows; NULL values are an error).
func StreamNumbers(ctx context.Context, conn *sql.Conn, query string, args []any, each func(cols [][]float64) error) error {
	err := conn.Raw(func(dc any) error {
		s, ok := dc.(NumberStreamConn)
		if !ok {
			return ErrFallback
		}
		return s.StreamNumbers(ctx, query, args, each)
	})
	if !errors.Is(err, ErrFallback) {
		return err
	}
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	const size = 2048
	cols := make([][]float64, len(names))
	for c := range cols {
		cols[c] = make([]float64, 0, size)
	}
	vals := make([]sql.NullFloat64, len(names))
	dst := make([]any, len(names))
	for c := range dst {
		dst[c] = &vals[c]
	}
	flush := func() error {
		if len(cols[0]) == 0 {
			return nil
		}
		if err := each(cols); err != nil {
			return err
		}
		for c := range cols {
			cols[c] = cols[c][:0]
		}
		return nil
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		for c, v := range vals {
			if !v.Valid {
				return fmt.Errorf("column %s of the streamed result is NULL", names[c])
			}
			cols[c] = append(cols[c], v.Float64)
		}
		if len(cols[0]) == size {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

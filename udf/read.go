package udf

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// errNotFast makes sqlnb fall back to database/sql: the query cannot be read through result chunks here.
var errNotFast = nb.ErrFallback

// ReadRows implements nb.RowReaderConn: it runs query with args and reads the whole result through
// DuckDB's result chunks — numbers from the vectors' memory, strings without a C call each — instead of
// database/sql's value-by-value conversion: statistics scans and model loads with millions of rows take a
// fraction of the time. Columns of other types than VARCHAR, BOOLEAN, integers and DOUBLE fall back
// (errNotFast).
func (c *conn) ReadRows(ctx context.Context, query string, args []any) (nb.Rows, error) {
	raw, err := rawConnection(c.Conn)
	if err != nil {
		return nil, errNotFast
	}
	out := &chunkRows{}
	if err := out.run(ctx, raw, query, args); err != nil {
		return nil, err
	}
	return out, nil
}

// chunkRows is a materialised result, one typed slice per resultColumn and a NULL flag per value.
type chunkRows struct {
	cols []resultColumn
	n    int
	pos  int
}

type resultColumn struct {
	typ  mapping.Type
	str  []string
	num  []float64
	ints []int64
	null []bool
}

// value returns row i of the resultColumn as database/sql would give it (nil for NULL).
func (c *resultColumn) value(i int) any {
	if c.null[i] {
		return nil
	}
	switch c.typ {
	case mapping.TypeVarchar:
		return c.str[i]
	case mapping.TypeDouble:
		return c.num[i]
	case mapping.TypeBoolean:
		return c.ints[i] != 0
	}
	return c.ints[i]
}

func (r *chunkRows) run(ctx context.Context, conn mapping.Connection, query string, args []any) error {
	var stmt mapping.PreparedStatement
	defer mapping.DestroyPrepare(&stmt)
	if err := prepareBound(conn, query, args, &stmt); err != nil {
		return err
	}
	defer interruptOnCancel(ctx, conn)()
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if mapping.ExecutePrepared(stmt, &res) == mapping.StateError {
		if err := ctx.Err(); err != nil {
			return err
		}
		return errors.New(mapping.ResultError(&res))
	}
	ncol := int(mapping.ColumnCount(&res))
	types := make([]mapping.Type, ncol)
	for c := range types {
		types[c] = mapping.ColumnType(&res, mapping.IdxT(c))
		switch types[c] {
		case mapping.TypeVarchar, mapping.TypeBoolean, mapping.TypeTinyInt, mapping.TypeSmallInt, mapping.TypeInteger,
			mapping.TypeBigInt, mapping.TypeUTinyInt, mapping.TypeUSmallInt, mapping.TypeUInteger, mapping.TypeDouble:
		default:
			return errNotFast
		}
	}
	var chunks []mapping.DataChunk
	defer func() {
		for i := range chunks {
			mapping.DestroyDataChunk(&chunks[i])
		}
	}()
	for {
		chunk, n := nextChunk(res)
		if n == 0 {
			break
		}
		chunks = append(chunks, chunk)
		r.n += n
	}
	r.cols = make([]resultColumn, ncol)
	for c := range r.cols {
		col := &r.cols[c]
		col.typ, col.null = types[c], make([]bool, 0, r.n)
		switch types[c] {
		case mapping.TypeVarchar:
			col.str = make([]string, 0, r.n)
		case mapping.TypeDouble:
			col.num = make([]float64, 0, r.n)
		default:
			col.ints = make([]int64, 0, r.n)
		}
	}
	for _, chunk := range chunks {
		n := int(mapping.DataChunkGetSize(chunk))
		for c := range ncol {
			vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(c))
			data, mask := mapping.VectorGetData(vec), validity(vec, n)
			col := &r.cols[c]
			for i := range n {
				col.null = append(col.null, !valid(mask, i))
			}
			switch types[c] {
			case mapping.TypeVarchar:
				for i := range n {
					s := ""
					if valid(mask, i) {
						s = strings.Clone(stringAt(data, i))
					}
					col.str = append(col.str, s)
				}
			case mapping.TypeDouble:
				col.num = append(col.num, unsafe.Slice((*float64)(data), n)...)
			case mapping.TypeBoolean:
				for _, b := range unsafe.Slice((*bool)(data), n) {
					x := int64(0)
					if b {
						x = 1
					}
					col.ints = append(col.ints, x)
				}
			default:
				for i := range n {
					v, _ := integerAt(types[c], data, i)
					col.ints = append(col.ints, v)
				}
			}
		}
	}
	r.pos = -1
	return ctx.Err()
}

// nextChunk fetches the next chunk of res and its size; 0 at the end (the chunk is then destroyed already).
func nextChunk(res mapping.Result) (mapping.DataChunk, int) {
	chunk := mapping.FetchChunk(res)
	if chunk.Ptr == nil {
		return chunk, 0
	}
	n := int(mapping.DataChunkGetSize(chunk))
	if n == 0 {
		mapping.DestroyDataChunk(&chunk)
	}
	return chunk, n
}

// prepareBound prepares query on conn into stmt and binds args (nil, string, float64, int64, int, bool; other
// types: errNotFast).
func prepareBound(conn mapping.Connection, query string, args []any, stmt *mapping.PreparedStatement) error {
	if mapping.Prepare(conn, query, stmt) == mapping.StateError {
		return errors.New(mapping.PrepareError(*stmt))
	}
	for i, a := range args {
		idx := mapping.IdxT(i + 1)
		var st mapping.State
		switch v := a.(type) {
		case nil:
			st = mapping.BindNull(*stmt, idx)
		case string:
			st = mapping.BindVarchar(*stmt, idx, v)
		case float64:
			st = mapping.BindDouble(*stmt, idx, v)
		case int64:
			st = mapping.BindInt64(*stmt, idx, v)
		case int:
			st = mapping.BindInt64(*stmt, idx, int64(v))
		case bool:
			st = mapping.BindBoolean(*stmt, idx, v)
		default:
			return errNotFast
		}
		if st == mapping.StateError {
			return fmt.Errorf("bind parameter %d: %s", i+1, mapping.PrepareError(*stmt))
		}
	}
	return nil
}

// interruptOnCancel interrupts the query running on conn when ctx is cancelled, until the returned function
// is called. That function returns only once the watcher has exited, so no interrupt comes after it and the
// caller may release conn (an interrupt racing with the release was a use after free: SIGSEGV in
// duckdb_interrupt).
func interruptOnCancel(ctx context.Context, conn mapping.Connection) func() {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-ctx.Done():
			mapping.Interrupt(conn)
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// Len is the number of rows (callers size their buffers with it).
func (r *chunkRows) Len() int { return r.n }

func (r *chunkRows) Next() bool   { r.pos++; return r.pos < r.n }
func (r *chunkRows) Err() error   { return nil }
func (r *chunkRows) Close() error { r.cols = nil; return nil }

// Scan converts the current row into dest, as database/sql does for the destination types sqlnb uses.
func (r *chunkRows) Scan(dest ...any) error {
	if len(dest) != len(r.cols) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.cols))
	}
	for c, d := range dest {
		v := r.cols[c].value(r.pos)
		switch p := d.(type) {
		case *any:
			*p = v
		case *sql.NullFloat64:
			p.Float64, p.Valid = toFloat(v)
		case *sql.NullString:
			p.String, p.Valid = v.(string)
		case *sql.NullInt64:
			p.Int64, p.Valid = v.(int64)
		case *string:
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("scan resultColumn %d: %T into a string", c, v)
			}
			*p = s
		case *int64:
			if i, ok := v.(int64); ok {
				*p = i
				break
			}
			x, ok := toFloat(v)
			if !ok {
				return fmt.Errorf("scan resultColumn %d: %T into an int64", c, v)
			}
			*p = int64(x)
		case *float64:
			x, ok := toFloat(v)
			if !ok {
				return fmt.Errorf("scan resultColumn %d: %T into a float64", c, v)
			}
			*p = x
		case *bool:
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("scan resultColumn %d: %T into a bool", c, v)
			}
			*p = b
		case *sql.NullBool:
			p.Bool, p.Valid = v.(bool)
		case *int:
			if i, ok := v.(int64); ok {
				*p = int(i)
				break
			}
			x, ok := toFloat(v)
			if !ok {
				return fmt.Errorf("scan resultColumn %d: %T into an int", c, v)
			}
			*p = int(x)
		default:
			return fmt.Errorf("scan resultColumn %d: unsupported destination %T", c, d)
		}
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

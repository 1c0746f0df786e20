package udf

import (
	"context"
	"database/sql/driver"
	"fmt"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// AppendRows implements nb.RowAppenderConn: it appends rows to schema.table through DuckDB's appender,
// inside the transaction open on the connection. Rows are written into data chunks directly — numbers into the vectors' memory,
// strings of up to 12 bytes inline into their string_t slots, longer ones through the C API — and appended
// a chunk at a time: storing a model with millions of statistics rows takes about a second.
func (c *conn) AppendRows(ctx context.Context, schema, table string, columns []string, next func([]driver.Value) bool) error {
	raw, err := rawConnection(c.Conn)
	if err != nil {
		return err
	}
	var a mapping.Appender
	if mapping.AppenderCreateExt(raw, "", schema, table, &a) == mapping.StateError {
		defer mapping.AppenderDestroy(&a)
		return fmt.Errorf("append to %s.%s: %s", schema, table, mapping.AppenderError(a))
	}
	defer mapping.AppenderDestroy(&a)
	fail := func() error { return fmt.Errorf("append to %s.%s: %s", schema, table, mapping.AppenderError(a)) }
	for _, col := range columns {
		if mapping.AppenderAddColumn(a, col) == mapping.StateError {
			return fail()
		}
	}
	types := make([]mapping.LogicalType, len(columns))
	ids := make([]mapping.Type, len(columns))
	for i := range columns {
		types[i] = mapping.AppenderColumnType(a, mapping.IdxT(i))
		ids[i] = mapping.GetTypeId(types[i])
	}
	chunk := mapping.CreateDataChunk(types)
	for i := range types {
		mapping.DestroyLogicalType(&types[i])
	}
	defer mapping.DestroyDataChunk(&chunk)
	size := int(mapping.VectorSize())
	row := make([]driver.Value, len(columns))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		mapping.DataChunkReset(chunk)
		vecs := make([]mapping.Vector, len(columns))
		data := make([]unsafe.Pointer, len(columns))
		for i := range columns {
			vecs[i] = mapping.DataChunkGetVector(chunk, mapping.IdxT(i))
			data[i] = mapping.VectorGetData(vecs[i])
		}
		n := 0
		for n < size && next(row) {
			for i, v := range row {
				if err := setValue(vecs[i], data[i], ids[i], n, v); err != nil {
					return fmt.Errorf("append to %s.%s column %s: %w", schema, table, columns[i], err)
				}
			}
			n++
		}
		if n == 0 {
			break
		}
		mapping.DataChunkSetSize(chunk, mapping.IdxT(n))
		if mapping.AppendDataChunk(a, chunk) == mapping.StateError {
			return fail()
		}
		if n < size {
			break
		}
	}
	if mapping.AppenderClose(a) == mapping.StateError {
		return fail()
	}
	return nil
}

// setValue writes v into row i of vec (data: its memory) of type t.
func setValue(vec mapping.Vector, data unsafe.Pointer, t mapping.Type, i int, v driver.Value) error {
	switch t {
	case mapping.TypeVarchar:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%T for VARCHAR", v)
		}
		if len(s) <= 12 {
			slot := (*[16]byte)(unsafe.Add(data, i*16))
			*slot = [16]byte{}
			*(*uint32)(unsafe.Pointer(&slot[0])) = uint32(len(s))
			copy(slot[4:], s)
			return nil
		}
		return tryAssignString(vec, i, s)
	case mapping.TypeBigInt:
		x, ok := v.(int64)
		if !ok {
			return fmt.Errorf("%T for BIGINT", v)
		}
		*(*int64)(unsafe.Add(data, 8*i)) = x
	case mapping.TypeInteger:
		x, ok := v.(int64)
		if !ok {
			return fmt.Errorf("%T for INTEGER", v)
		}
		*(*int32)(unsafe.Add(data, 4*i)) = int32(x)
	case mapping.TypeDouble:
		x, ok := v.(float64)
		if !ok {
			return fmt.Errorf("%T for DOUBLE", v)
		}
		*(*float64)(unsafe.Add(data, 8*i)) = x
	default:
		return fmt.Errorf("unsupported column type #%d", t)
	}
	return nil
}

// unwrapConn returns the duckdb-go connection inside a driver connection of this package.
func unwrapConn(dc any) (driver.Conn, bool) {
	if w, ok := dc.(interface{ Unwrap() driver.Conn }); ok {
		dc = w.Unwrap()
	}
	c, ok := dc.(*duckdb.Conn)
	return c, ok
}

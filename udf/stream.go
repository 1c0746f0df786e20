package udf

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// StreamNumbers implements nb.NumberStreamConn: it runs query with args as a streaming query and calls each
// with every result chunk, in order, as one []float64 per column: DOUBLE columns are the vector's own
// memory, BOOLEAN and integer columns are converted. DuckDB produces the chunks as they are fetched, so
// scanning a table of any size holds a chunk at a time (an ORDER BY read this way ran out of memory at 50M
// rows under 256MB: sort into a table first, as readRanking does). A NULL value is an error; other column
// types fall back to database/sql (errNotFast).
func (c *conn) StreamNumbers(ctx context.Context, query string, args []any, each func(cols [][]float64) error) error {
	raw, err := rawConnection(c.Conn)
	if err != nil {
		return errNotFast
	}
	return streamRaw(ctx, raw, query, args, each)
}

func streamRaw(ctx context.Context, conn mapping.Connection, query string, args []any, each func(cols [][]float64) error) error {
	var stmt mapping.PreparedStatement
	defer mapping.DestroyPrepare(&stmt)
	if err := prepareBound(conn, query, args, &stmt); err != nil {
		return err
	}
	ncol := int(mapping.PreparedStatementColumnCount(stmt))
	types := make([]mapping.Type, ncol)
	for c := range types {
		types[c] = mapping.PreparedStatementColumnType(stmt, mapping.IdxT(c))
		switch types[c] {
		case mapping.TypeDouble, mapping.TypeBoolean, mapping.TypeTinyInt, mapping.TypeSmallInt, mapping.TypeInteger,
			mapping.TypeBigInt, mapping.TypeUTinyInt, mapping.TypeUSmallInt, mapping.TypeUInteger:
		default:
			return errNotFast
		}
	}
	defer interruptOnCancel(ctx, conn)()
	var pending mapping.PendingResult
	defer mapping.DestroyPending(&pending)
	if bindings.PendingPreparedStreaming(stmt, &pending) == mapping.StateError {
		return errors.New(mapping.PendingError(pending))
	}
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if mapping.ExecutePending(pending, &res) == mapping.StateError {
		if err := ctx.Err(); err != nil {
			return err
		}
		return errors.New(mapping.ResultError(&res))
	}
	cols := make([][]float64, ncol)
	bufs := make([][]float64, ncol)
	for {
		chunk, n := nextChunk(res)
		if n == 0 {
			break
		}
		err := func() error {
			defer mapping.DestroyDataChunk(&chunk)
			for c := range cols {
				vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(c))
				if mask := validity(vec, n); mask != nil {
					for i := range n {
						if !valid(mask, i) {
							return fmt.Errorf("column %d of the streamed result is NULL", c+1)
						}
					}
				}
				data := mapping.VectorGetData(vec)
				switch types[c] {
				case mapping.TypeDouble:
					cols[c] = unsafe.Slice((*float64)(data), n)
				case mapping.TypeBoolean:
					bufs[c] = grow(bufs[c], n)
					for i, b := range unsafe.Slice((*bool)(data), n) {
						bufs[c][i] = 0
						if b {
							bufs[c][i] = 1
						}
					}
					cols[c] = bufs[c][:n]
				default:
					bufs[c] = grow(bufs[c], n)
					numbersAt(types[c], data, bufs[c][:n])
					cols[c] = bufs[c][:n]
				}
			}
			return each(cols)
		}()
		if err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if msg := mapping.ResultError(&res); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// grow returns buf with length ≥ n.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

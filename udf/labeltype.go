package udf

import (
	"math"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/sqlnb"
)

// typedLabels writes nb_predict's result in the label column's own type (sqlnb.Model.LabelValues): each
// class's value as the bytes of one vector element, written per row without a call into DuckDB.
type typedLabels struct {
	size int      // bytes per element: 1, 2, 4 or 8
	bits []uint64 // per class: the element's bytes (little-endian, as DuckDB's vectors hold them)
}

// labelTypes are the DuckDB types nb_predict returns as themselves.
var labelTypes = map[string]mapping.Type{
	"BOOLEAN": mapping.TypeBoolean, "TINYINT": mapping.TypeTinyInt, "SMALLINT": mapping.TypeSmallInt,
	"INTEGER": mapping.TypeInteger, "BIGINT": mapping.TypeBigInt, "UTINYINT": mapping.TypeUTinyInt,
	"USMALLINT": mapping.TypeUSmallInt, "UINTEGER": mapping.TypeUInteger, "UBIGINT": mapping.TypeUBigInt,
	"FLOAT": mapping.TypeFloat, "DOUBLE": mapping.TypeDouble,
}

// newTypedLabels returns the writer of m's labels in their own type and that type, or nil for text labels
// (VARCHAR, and the types sqlnb.Model.LabelValues gives as text).
func newTypedLabels(m *sqlnb.Model) (*typedLabels, mapping.Type) {
	name, vals, ok := m.LabelValues()
	t, typed := labelTypes[name]
	if !ok || !typed {
		return nil, mapping.TypeVarchar
	}
	tl := &typedLabels{bits: make([]uint64, len(vals))}
	for c, v := range vals {
		switch x := v.(type) {
		case bool:
			if x {
				tl.bits[c] = 1
			}
		case int64:
			tl.bits[c] = uint64(x)
		case uint64:
			tl.bits[c] = x
		case float64:
			if t == mapping.TypeFloat {
				tl.bits[c] = uint64(math.Float32bits(float32(x)))
			} else {
				tl.bits[c] = math.Float64bits(x)
			}
		}
	}
	switch t {
	case mapping.TypeBoolean, mapping.TypeTinyInt, mapping.TypeUTinyInt:
		tl.size = 1
	case mapping.TypeSmallInt, mapping.TypeUSmallInt:
		tl.size = 2
	case mapping.TypeInteger, mapping.TypeUInteger, mapping.TypeFloat:
		tl.size = 4
	default:
		tl.size = 8
	}
	return tl, t
}

// bindLabelType makes nb_predict return the label column's type when the model's labels have one
// (newTypedLabels) and DuckDB lets the bind set it (setReturnType); else it returns VARCHAR.
func (b *bound) bindLabelType(info mapping.BindInfo, cctx mapping.ClientContext) {
	if tl, t := newTypedLabels(b.scorer.Model); tl != nil && setReturnType(info, cctx, t) {
		b.typed = tl
	}
}

// writeLabels writes the predicted class best[i] of every row (rows whose struct argument is NULL are
// marked NULL by the caller).
func (tl *typedLabels) writeLabels(out mapping.Vector, best []int32) {
	base := mapping.VectorGetData(out)
	for i, c := range best {
		tl.write(base, i, c)
	}
}

// write sets row i of the vector data base to class c's label.
func (tl *typedLabels) write(base unsafe.Pointer, i int, c int32) {
	v := tl.bits[c]
	switch tl.size {
	case 1:
		*(*uint8)(unsafe.Add(base, i)) = uint8(v)
	case 2:
		*(*uint16)(unsafe.Add(base, 2*i)) = uint16(v)
	case 4:
		*(*uint32)(unsafe.Add(base, 4*i)) = uint32(v)
	default:
		*(*uint64)(unsafe.Add(base, 8*i)) = v
	}
}

// setReturnType makes the scalar function being bound return type t instead of the type it was
// registered with, and reports whether it could.
//
// DuckDB's C API (1.5.6) has no call for this: a scalar function's return type is fixed when it is
// registered (ANY is refused there), while DuckDB's own functions set it in their bind callback. The bind
// info a C-API bind callback receives is DuckDB's CScalarFunctionInternalBindInfo
// (src/main/capi/scalar_function-c.cpp), whose first two members are references — pointers — to the
// ClientContext and to the ScalarFunction being bound; that pointer is what duckdb_scalar_function_set_return_type
// takes (a duckdb_scalar_function is a ScalarFunction*), and DuckDB reads the return type back after the
// bind callback returns. The layout is checked before use: the first pointer must be the client context
// that duckdb_scalar_function_get_client_context wraps (CClientContextWrapper holds one reference to it).
// If it is not (a DuckDB whose struct changed), nothing is written and the function keeps returning its
// registered type. TestPredictReturnsLabelType fails then.
func setReturnType(info mapping.BindInfo, cctx mapping.ClientContext, t mapping.Type) bool {
	if info.Ptr == nil || cctx.Ptr == nil {
		return false
	}
	refs := (*[2]unsafe.Pointer)(info.Ptr)
	if refs[0] == nil || refs[0] != *(*unsafe.Pointer)(cctx.Ptr) || refs[1] == nil {
		return false
	}
	lt := mapping.CreateLogicalType(t)
	defer mapping.DestroyLogicalType(&lt)
	mapping.ScalarFunctionSetReturnType(mapping.ScalarFunction{Ptr: refs[1]}, lt)
	return true
}

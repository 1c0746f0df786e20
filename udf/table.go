package udf

import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// colType is a result column type of a table function.
type colType int

const (
	tVarchar colType = iota
	tBigint
	tDouble
	tBoolean
	tVarcharList
	tTimestamp
	tDoubleList
)

func (t colType) logical() mapping.LogicalType {
	switch t {
	case tBigint:
		return mapping.CreateLogicalType(mapping.TypeBigInt)
	case tDouble:
		return mapping.CreateLogicalType(mapping.TypeDouble)
	case tBoolean:
		return mapping.CreateLogicalType(mapping.TypeBoolean)
	case tTimestamp:
		return mapping.CreateLogicalType(mapping.TypeTimestamp)
	case tVarcharList:
		v := mapping.CreateLogicalType(mapping.TypeVarchar)
		defer mapping.DestroyLogicalType(&v)
		return mapping.CreateListType(v)
	case tDoubleList:
		v := mapping.CreateLogicalType(mapping.TypeDouble)
		defer mapping.DestroyLogicalType(&v)
		return mapping.CreateListType(v)
	}
	return mapping.CreateLogicalType(mapping.TypeVarchar)
}

type param struct {
	name string
	typ  colType
}

// emptyOK are the named parameters for which the empty string or list is a value, not an error: a class may
// be named with the empty string, and no columns to exclude or to group by is what an empty list says. Any
// other named parameter given either is an error (nbTableBind).
var emptyOK = map[string]bool{"pos_label": true, "exclude": true, "by": true}

// example says what a value of type t looks like, for messages.
func (t colType) example() string {
	switch t {
	case tBigint:
		return "a whole number"
	case tDouble:
		return "a number"
	case tBoolean:
		return "true or false"
	case tVarcharList:
		return "a list of names, as ['a', 'b']"
	case tDoubleList:
		return "a list of numbers, as [0.5, 1]"
	case tTimestamp:
		return "a timestamp"
	}
	return "a string"
}

type column struct {
	name string
	typ  colType
}

// tableSpec is a table function: positional and optional named parameters, fixed result columns, and
// run, called once per execution on the internal connection pool.
type tableSpec struct {
	name       string
	positional []param
	named      []param
	columns    []column
	run        func(ctx context.Context, reg *registry, args map[string]any) ([][]any, error)
	reg        *registry
	// writes: the function changes the model store on sqlnb's own connection, so it refuses to run inside
	// the caller's explicit transaction (ROLLBACK could not undo it).
	writes bool
	// reads: the function reads the model named by its "model" argument: the version the caller's snapshot
	// sees is bound with the call (args["version"], a *sqlnb.Scorer), as the scoring functions bind it.
	reads bool
}

type tableBind struct {
	spec   *tableSpec
	args   map[string]any
	caller uint64 // the DuckDB id of the connection whose statement calls the function
}

type tableState struct {
	done bool
	rows [][]any
	pos  int
}

func registerTable(conn mapping.Connection, spec *tableSpec) error {
	f := mapping.CreateTableFunction()
	defer mapping.DestroyTableFunction(&f)
	mapping.TableFunctionSetName(f, spec.name)
	for _, p := range spec.positional {
		t := p.typ.logical()
		mapping.TableFunctionAddParameter(f, t)
		mapping.DestroyLogicalType(&t)
	}
	for _, p := range spec.named {
		t := p.typ.logical()
		mapping.TableFunctionAddNamedParameter(f, p.name, t)
		mapping.DestroyLogicalType(&t)
	}
	mapping.TableFunctionSetExtraInfo(f, newHandle(spec), deleteHandlePt)
	mapping.TableFunctionSetBind(f, tableBindPtr)
	mapping.TableFunctionSetInit(f, tableInitPtr)
	mapping.TableFunctionSetFunction(f, tableExecPtr)
	if mapping.RegisterTableFunction(conn, f) == mapping.StateError {
		return fmt.Errorf("register %s failed", spec.name)
	}
	return nil
}

// goValue converts a parameter value; nil for NULL or absent. A string holding a NUL character is an error
// (varchar), and so is a NULL element of a list: it is no name or number, and dropping it would run with a
// shorter list than the one written (nb_merge('c', ['a', NULL, 'b']) merged a and b).
func goValue(v mapping.Value, t colType) (any, error) {
	if v.Ptr == nil || mapping.IsNullValue(v) {
		return nil, nil
	}
	switch t {
	case tBigint:
		return mapping.GetInt64(v), nil
	case tDouble:
		return mapping.GetDouble(v), nil
	case tBoolean:
		return mapping.GetBool(v), nil
	case tVarcharList:
		n := int(mapping.GetListSize(v))
		out := make([]string, 0, n)
		for i := range n {
			c := mapping.GetListChild(v, mapping.IdxT(i))
			if mapping.IsNullValue(c) {
				mapping.DestroyValue(&c)
				return nil, nullElement(i)
			}
			x, err := varchar(c)
			mapping.DestroyValue(&c)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case tDoubleList:
		n := int(mapping.GetListSize(v))
		out := make([]float64, 0, n)
		for i := range n {
			c := mapping.GetListChild(v, mapping.IdxT(i))
			null := mapping.IsNullValue(c)
			if !null {
				out = append(out, mapping.GetDouble(c))
			}
			mapping.DestroyValue(&c)
			if null {
				return nil, nullElement(i)
			}
		}
		return out, nil
	}
	return varchar(v)
}

// nullElement is goValue's error for a NULL at 0-based position i of a list.
func nullElement(i int) error {
	return fmt.Errorf("holds NULL (element %d): remove it, or give a value in its place", i+1)
}

// empty reports whether x, a named parameter's value, is the empty string or an empty list.
func empty(x any) bool {
	switch v := x.(type) {
	case string:
		return v == ""
	case []string:
		return len(v) == 0
	case []float64:
		return len(v) == 0
	}
	return false
}

//export nbTableBind
func nbTableBind(infoPtr unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: infoPtr}
	name := "sqlnb"
	defer recovered(&name, func(msg string) { mapping.BindSetError(info, msg) })
	spec := handleValue[*tableSpec](mapping.BindGetExtraInfo(info))
	name = spec.name
	fault(name, "bind")
	var cctx mapping.ClientContext
	mapping.TableFunctionGetClientContext(info, &cctx)
	caller := uint64(mapping.ClientContextGetConnectionId(cctx))
	mapping.DestroyClientContext(&cctx)
	if spec.writes {
		if spec.reg.inExplicitTx(caller) {
			mapping.BindSetError(info, fmt.Sprintf("%s cannot run inside an explicit transaction: it works on sqlnb's own "+
				"connection and commits at once, so ROLLBACK could not undo it; run it after COMMIT (or before BEGIN)", spec.name))
			return
		}
	}
	args := map[string]any{}
	for i, p := range spec.positional {
		v := mapping.BindGetParameter(info, mapping.IdxT(i))
		x, err := goValue(v, p.typ)
		mapping.DestroyValue(&v)
		if err != nil {
			mapping.BindSetError(info, fmt.Sprintf("%s: %s %v", spec.name, p.name, err))
			return
		}
		args[p.name] = x
		if x == nil {
			mapping.BindSetError(info, fmt.Sprintf("%s: %s must not be NULL", spec.name, p.name))
			return
		}
	}
	for _, p := range spec.named {
		v := mapping.BindGetNamedParameter(info, p.name)
		given := v.Ptr != nil // DuckDB hands over no value for a named argument left out
		x, err := goValue(v, p.typ)
		mapping.DestroyValue(&v)
		if err != nil {
			mapping.BindSetError(info, fmt.Sprintf("%s: %s %v", spec.name, p.name, err))
			return
		}
		if given && x == nil {
			// NULL is never "not given": append := getvariable('unset') replaced a model where it meant to add.
			mapping.BindSetError(info, fmt.Sprintf("%s: %s := NULL: give %s, or leave the argument out for its default "+
				"(NULL does not mean \"not given\")", spec.name, p.name, p.typ.example()))
			return
		}
		if !emptyOK[p.name] && empty(x) {
			// Nor is '' or []: features := [] trained on every column, kind := '' chose the kinds.
			lit := "''"
			if p.typ != tVarchar {
				lit = "[]"
			}
			mapping.BindSetError(info, fmt.Sprintf("%s: %s := %s: give %s, or leave the argument out for its default "+
				"(%s does not mean \"not given\")", spec.name, p.name, lit, p.typ.example(), lit))
			return
		}
		if x != nil {
			args[p.name] = x
		}
	}
	if spec.reads {
		var cctx mapping.ClientContext
		mapping.TableFunctionGetClientContext(info, &cctx)
		v, err := spec.reg.scorerFor(context.Background(), args["model"].(string), cctx)
		mapping.DestroyClientContext(&cctx)
		if err != nil {
			mapping.BindSetError(info, spec.name+": "+err.Error())
			return
		}
		args["version"] = v
	}
	if src, ok := args["source"].(string); ok {
		var cctx mapping.ClientContext
		mapping.TableFunctionGetClientContext(info, &cctx)
		if callerTemporary(cctx, src) {
			mapping.DestroyClientContext(&cctx)
			mapping.BindSetError(info, fmt.Sprintf("%s: %q is a temporary table or view of your connection, which %s cannot see: it reads "+
				"the source on sqlnb's own connection; create a regular table (CREATE TABLE … AS …) and pass its name", spec.name, src, spec.name))
			return
		}
		resolved, err := spec.reg.callerSource(cctx, src)
		mapping.DestroyClientContext(&cctx)
		if err != nil {
			mapping.BindSetError(info, spec.name+": "+err.Error())
			return
		}
		args["source"] = resolved
	}
	for _, c := range spec.columns {
		t := c.typ.logical()
		mapping.BindAddResultColumn(info, c.name, t)
		mapping.DestroyLogicalType(&t)
	}
	mapping.BindSetBindData(info, newHandle(&tableBind{spec: spec, args: args, caller: caller}), deleteHandlePt)
}

//export nbTableInit
func nbTableInit(infoPtr unsafe.Pointer) {
	info := mapping.InitInfo{Ptr: infoPtr}
	name := "sqlnb"
	defer recovered(&name, func(msg string) { mapping.InitSetError(info, msg) })
	name = handleValue[*tableBind](mapping.InitGetBindData(info)).spec.name
	fault(name, "init")
	mapping.InitSetMaxThreads(info, 1)
	mapping.InitSetInitData(info, newHandle(&tableState{}), deleteHandlePt)
}

//export nbTableExec
func nbTableExec(infoPtr, outputPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: infoPtr}
	name := "sqlnb"
	defer recovered(&name, func(msg string) { mapping.FunctionSetError(info, msg) })
	b := handleValue[*tableBind](mapping.FunctionGetBindData(info))
	name = b.spec.name
	fault(name, "exec")
	st := handleValue[*tableState](mapping.FunctionGetInitData(info))
	out := mapping.DataChunk{Ptr: outputPtr}
	if !st.done {
		st.done = true
		rows, err := b.spec.run(b.spec.reg.statementContext(b.caller), b.spec.reg, b.args)
		if err != nil {
			mapping.FunctionSetError(info, b.spec.name+": "+err.Error())
			return
		}
		st.rows = rows
	}
	n := min(len(st.rows)-st.pos, int(mapping.VectorSize()))
	for col, c := range b.spec.columns {
		vec := mapping.DataChunkGetVector(out, mapping.IdxT(col))
		for i := range n {
			writeValue(vec, i, c.typ, st.rows[st.pos+i][col])
		}
	}
	st.pos += n
	mapping.DataChunkSetSize(out, mapping.IdxT(n))
}

func writeValue(vec mapping.Vector, i int, t colType, v any) {
	if v == nil {
		setNull(vec, i)
		return
	}
	data := mapping.VectorGetData(vec)
	switch t {
	case tBigint:
		var x int64
		switch y := v.(type) {
		case int:
			x = int64(y)
		case int64:
			x = y
		}
		*(*int64)(unsafe.Add(data, 8*i)) = x
	case tDouble:
		x, _ := v.(float64)
		if math.IsNaN(x) {
			setNull(vec, i)
			return
		}
		*(*float64)(unsafe.Add(data, 8*i)) = x
	case tBoolean:
		x, _ := v.(bool)
		*(*bool)(unsafe.Add(data, i)) = x
	case tTimestamp:
		x, _ := v.(time.Time)
		*(*int64)(unsafe.Add(data, 8*i)) = x.UnixMicro()
	case tVarcharList, tDoubleList:
		writeList(vec, i, v)
	default:
		var s string
		switch y := v.(type) {
		case string:
			s = y
		case time.Time:
			s = y.Format(time.RFC3339)
		default:
			s = fmt.Sprint(y)
		}
		assignString(vec, i, s)
	}
}

// writeList writes row i of a LIST(VARCHAR) or LIST(DOUBLE) vector from a []string or []float64 (a NaN
// element is NULL).
func writeList(vec mapping.Vector, i int, v any) {
	strs, _ := v.([]string)
	nums, _ := v.([]float64)
	n := len(strs) + len(nums)
	off := int(mapping.ListVectorGetSize(vec))
	listReserve(vec, off+n)
	child := mapping.ListVectorGetChild(vec)
	for k, x := range strs {
		assignString(child, off+k, x)
	}
	if len(nums) > 0 {
		data := unsafe.Slice((*float64)(mapping.VectorGetData(child)), off+n)
		for k, x := range nums {
			data[off+k] = x
			if math.IsNaN(x) {
				setNull(child, off+k)
			}
		}
	}
	mapping.ListVectorSetSize(vec, mapping.IdxT(off+n))
	*(*listEntry)(unsafe.Add(mapping.VectorGetData(vec), 16*i)) = listEntry{offset: uint64(off), length: uint64(n)}
}

// varchar returns a VARCHAR value's text. DuckDB's C API hands a value's string over NUL-terminated
// (duckdb_get_varchar), so one holding a NUL character would arrive cut there: the name of another model,
// class or column than the one written. Such a value is an error instead; it is recognised by its SQL literal
// (duckdb_value_to_string), cut at the same place, which then lacks its closing quote.
func varchar(v mapping.Value) (string, error) {
	s := mapping.GetVarchar(v)
	if lit := mapping.ValueToString(v); !strings.HasSuffix(lit, "'") {
		return "", fmt.Errorf("holds a NUL character (chr(0)) after %q: %w", s, errNUL)
	}
	return s, nil
}

// errNUL is varchar's error.
var errNUL = errors.New("sqlnb receives strings from DuckDB cut at it, so names and strings given to it cannot contain one")

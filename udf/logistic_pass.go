package udf

/*
void nbLogisticPassBind(void *info);
void nbLogisticPassExec(void *info, void *input, void *output);
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
	"github.com/sqlnb/sqlnb/sqlnb/family/logistic"
)

// nb_logistic_pass(token, k INTEGER[, w DOUBLE], x1 DOUBLE, ...[, h UBIGINT]) → BOOLEAN feeds one pass of
// a logistic regression fit in progress (logistic.LookupLogisticPass(token)) with the rows of each chunk: the
// class index, the weight and the design columns, read straight from DuckDB's vectors; with a trailing
// hash h the rows are kept for the fit's sample instead. It is sqlnb's own (train_logistic_pass and
// train_logistic_sample call it), and returns true for every row.
const logisticPassName = "nb_logistic_pass"

func registerLogisticPass(conn mapping.Connection) error {
	ret := mapping.CreateLogicalType(mapping.TypeBoolean)
	if err := registerVarargs(conn, logisticPassName, ret, unsafe.Pointer(C.nbLogisticPassBind), unsafe.Pointer(C.nbLogisticPassExec),
		newHandle(logisticPassName)); err != nil {
		return err
	}
	return nil
}

// passBound is nb_logistic_pass bound to one fit.
type passBound struct {
	pass       *logistic.LogisticPass
	collect    bool // a trailing UBIGINT hash: the rows are kept for the fit's sample
	unknownArg int
}

//export nbLogisticPassBind
func nbLogisticPassBind(infoPtr unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: infoPtr}
	name := logisticPassName
	defer recovered(&name, func(msg string) { mapping.ScalarFunctionBindSetError(info, msg) })
	fault(name, "bind")
	b, err := bindLogisticPass(info)
	if err != nil {
		mapping.ScalarFunctionBindSetError(info, name+": "+err.Error())
		return
	}
	mapping.ScalarFunctionSetBindData(info, newHandle(b), deleteHandlePt)
	mapping.ScalarFunctionSetBindDataCopy(info, copyHandlePtr)
}

func bindLogisticPass(info mapping.BindInfo) (*passBound, error) {
	args, cctx, release := bindArguments(info)
	defer release()
	for i, a := range args {
		if a.id == mapping.TypeInvalid {
			return &passBound{unknownArg: i + 1}, nil // bound again once the types are known
		}
	}
	token, err := foldString(cctx, info, 0, args[0])
	if err != nil {
		return nil, fmt.Errorf("the first argument must be a fit's constant token: %v", err)
	}
	p, err := logistic.LookupLogisticPass(token)
	if err != nil {
		return nil, err
	}
	want := 2 + p.Columns
	if p.Weighted {
		want++
	}
	collect := len(args) == want+1 && args[want].id == mapping.TypeUBigInt
	if collect {
		args = args[:want]
	}
	if len(args) != want {
		return nil, fmt.Errorf("the fit takes %d arguments, not %d", want, len(args))
	}
	if args[1].id != mapping.TypeInteger {
		return nil, fmt.Errorf("the class index must be INTEGER")
	}
	for i, a := range args[2:] {
		if a.id != mapping.TypeDouble {
			return nil, fmt.Errorf("argument %d must be DOUBLE", i+3)
		}
	}
	return &passBound{pass: p, collect: collect}, nil
}

//export nbLogisticPassExec
func nbLogisticPassExec(infoPtr, inputPtr, outputPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: infoPtr}
	name := logisticPassName
	defer recovered(&name, func(msg string) { mapping.ScalarFunctionSetError(info, msg) })
	fault(name, "exec")
	b := handleValue[*passBound](mapping.ScalarFunctionGetBindData(info))
	if b.unknownArg > 0 {
		mapping.ScalarFunctionSetError(info, fmt.Sprintf("%s: the type of argument %d was not known when the query was bound", name, b.unknownArg))
		return
	}
	input := mapping.DataChunk{Ptr: inputPtr}
	n := int(mapping.DataChunkGetSize(input))
	if n == 0 {
		return
	}
	p := b.pass
	// Rows with a NULL (a missing number; the query keeps only rows with a label and the categories) are
	// marked for the fit to leave out.
	var ok []bool
	column := func(i int) unsafe.Pointer {
		vec := mapping.DataChunkGetVector(input, mapping.IdxT(i))
		if mask := validity(vec, n); mask != nil {
			if ok == nil {
				ok = make([]bool, n)
				for r := range ok {
					ok[r] = true
				}
			}
			for r := range ok {
				ok[r] = ok[r] && valid(mask, r)
			}
		}
		return mapping.VectorGetData(vec)
	}
	k := unsafe.Slice((*int32)(column(1)), n)
	next := 2
	var w []float64
	if p.Weighted {
		w = unsafe.Slice((*float64)(column(next)), n)
		next++
	}
	x := make([][]float64, p.Columns)
	for j := range x {
		x[j] = unsafe.Slice((*float64)(column(next+j)), n)
	}
	if b.collect {
		if ok != nil {
			mapping.ScalarFunctionSetError(info, name+": a NULL value reached the fit's sample (its query keeps complete rows only)")
			return
		}
		p.Collect(unsafe.Slice((*uint64)(column(next+p.Columns)), n), k, w, x)
	} else {
		p.Add(k, w, x, ok)
	}
	out := unsafe.Slice((*bool)(mapping.VectorGetData(mapping.Vector{Ptr: outputPtr})), n)
	for i := range out {
		out[i] = true
	}
}

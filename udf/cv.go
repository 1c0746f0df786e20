package udf

/*
void nbCVBind(void *info);
void nbCVExec(void *info, void *input, void *output);
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/sqlnb"
)

var foldSetSeq atomic.Int64

// RegisterFolds makes scorers (one per fold) callable as nb_cv_proba(name, fold, features) until release
// is called. It implements sqlnb.FoldRegistrar.
func (db *DB) RegisterFolds(scorers []*sqlnb.Scorer) (string, func()) {
	name := fmt.Sprintf("cv%d", foldSetSeq.Add(1))
	r := db.reg
	r.mu.Lock()
	if r.folds == nil {
		r.folds = map[string][]*sqlnb.Scorer{}
	}
	r.folds[name] = scorers
	r.mu.Unlock()
	return name, func() {
		r.mu.Lock()
		delete(r.folds, name)
		r.mu.Unlock()
	}
}

// cvBound is nb_cv_proba bound to a fold set: one bound scorer per fold (their category indexes differ).
type cvBound struct {
	folds []*bound
}

func registerCV(conn mapping.Connection, reg *registry) error {
	f := mapping.CreateScalarFunction()
	defer mapping.DestroyScalarFunction(&f)
	mapping.ScalarFunctionSetName(f, "nb_cv_proba")
	varchar := mapping.CreateLogicalType(mapping.TypeVarchar)
	defer mapping.DestroyLogicalType(&varchar)
	anyType := mapping.CreateLogicalType(mapping.TypeAny)
	defer mapping.DestroyLogicalType(&anyType)
	mapping.ScalarFunctionAddParameter(f, varchar)
	mapping.ScalarFunctionSetVarargs(f, anyType)
	ret := returnType(outProba)
	defer mapping.DestroyLogicalType(&ret)
	mapping.ScalarFunctionSetReturnType(f, ret)
	mapping.ScalarFunctionSetSpecialHandling(f)
	mapping.ScalarFunctionSetBind(f, unsafe.Pointer(C.nbCVBind))
	mapping.ScalarFunctionSetFunction(f, unsafe.Pointer(C.nbCVExec))
	mapping.ScalarFunctionSetExtraInfo(f, newHandle(reg), deleteHandlePt)
	if mapping.RegisterScalarFunction(conn, f) == mapping.StateError {
		return fmt.Errorf("register nb_cv_proba failed")
	}
	return nil
}

//export nbCVBind
func nbCVBind(infoPtr unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: infoPtr}
	reg := handleValue[*registry](mapping.ScalarFunctionBindGetExtraInfo(info))
	defer recovered("nb_cv_proba", func(msg string) { mapping.ScalarFunctionBindSetError(info, msg) })
	fail := func(err error) { mapping.ScalarFunctionBindSetError(info, "nb_cv_proba: "+err.Error()) }
	var cctx mapping.ClientContext
	mapping.ScalarFunctionGetClientContext(info, &cctx)
	defer mapping.DestroyClientContext(&cctx)
	argc := int(mapping.ScalarFunctionBindGetArgumentCount(info))
	args := make([]argument, argc)
	for i := range args {
		expr := mapping.ScalarFunctionBindGetArgument(info, mapping.IdxT(i))
		args[i].typ = mapping.ExpressionReturnType(expr)
		args[i].id = mapping.GetTypeId(args[i].typ)
		args[i].foldable = mapping.ExpressionIsFoldable(expr)
		mapping.DestroyExpression(&expr)
	}
	defer func() {
		for i := range args {
			mapping.DestroyLogicalType(&args[i].typ)
		}
	}()
	name, err := foldString(cctx, info, 0, args[0])
	if err != nil || argc < 3 {
		fail(fmt.Errorf("use nb_cv_proba('set', fold, features) with a fold set registered by sqlnb cv"))
		return
	}
	reg.mu.Lock()
	scorers := reg.folds[name]
	reg.mu.Unlock()
	if scorers == nil {
		fail(fmt.Errorf("no fold set %q (fold sets exist only while sqlnb cv runs)", name))
		return
	}
	if args[1].id != mapping.TypeBigInt {
		fail(fmt.Errorf("the fold must be BIGINT"))
		return
	}
	cb := &cvBound{}
	spec := &scalarSpec{name: "nb_cv_proba", out: outProba, reg: reg}
	for _, s := range scorers {
		b := newBound(spec, s)
		if err := b.bindFeatures(args[2:], 2, "nb_cv_proba('set', fold, t)"); err != nil {
			fail(err)
			return
		}
		cb.folds = append(cb.folds, b)
	}
	mapping.ScalarFunctionSetBindData(info, newHandle(cb), deleteHandlePt)
	mapping.ScalarFunctionSetBindDataCopy(info, copyHandlePtr)
}

//export nbCVExec
func nbCVExec(infoPtr, inputPtr, outputPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: infoPtr}
	cb := handleValue[*cvBound](mapping.ScalarFunctionGetBindData(info))
	defer recovered("nb_cv_proba", func(msg string) { mapping.ScalarFunctionSetError(info, msg) })
	input := mapping.DataChunk{Ptr: inputPtr}
	out := mapping.Vector{Ptr: outputPtr}
	n := int(mapping.DataChunkGetSize(input))
	if n == 0 {
		return
	}
	k := len(cb.folds)
	foldVec := mapping.DataChunkGetVector(input, 1)
	folds := unsafe.Slice((*int64)(mapping.VectorGetData(foldVec)), n)
	foldMask := validity(foldVec, n)
	first := cb.folds[0]
	var structVec mapping.Vector
	var structMask []uint64
	if first.struc {
		structVec = mapping.DataChunkGetVector(input, mapping.IdxT(first.structArg))
		structMask = validity(structVec, n)
	}
	rows := make([][]int, k)
	var nulls []int
	for i, f := range folds {
		if !valid(foldMask, i) || f < 0 || int(f) >= k || !valid(structMask, i) {
			nulls = append(nulls, i)
			continue
		}
		rows[f] = append(rows[f], i)
	}
	maxK := 0
	for _, b := range cb.folds {
		maxK = max(maxK, len(b.labels))
	}
	base := int(mapping.ListVectorGetSize(out))
	mapping.ListVectorReserve(out, mapping.IdxT(base+n*maxK))
	entries := unsafe.Slice((*listEntry)(mapping.VectorGetData(out)), n)
	child := mapping.ListVectorGetChild(out)
	keys := mapping.StructVectorGetChild(child, 0)
	vals := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.StructVectorGetChild(child, 1))), base+n*maxK)
	off := base
	for f, idx := range rows {
		if len(idx) == 0 {
			continue
		}
		b := cb.folds[f]
		s := b.scratch(n)
		b.readAll(input, structVec, n, s)
		if s.sub == nil {
			s.sub = b.scorer.NewBatch(int(mapping.VectorSize()))
		}
		s.batch.N = n
		s.batch.Gather(s.sub, idx)
		K, m := len(b.labels), len(idx)
		jll := s.jll[:K*m]
		b.scorer.JointLogLikelihood(s.sub, jll, s.bad)
		var w stringWriter
		w.reset(keys, s.first)
		for r, i := range idx {
			entries[i] = listEntry{offset: uint64(off), length: uint64(K)}
			sqlnb.Posterior(jll, m, K, r, vals[off:off+K])
			for c := range K {
				w.write(off+c, int32(c), &b.labels[c])
			}
			off += K
		}
		b.pool.Put(s)
	}
	for _, i := range nulls {
		entries[i] = listEntry{offset: uint64(off)}
		setNull(out, i)
	}
	mapping.ListVectorSetSize(out, mapping.IdxT(off))
}

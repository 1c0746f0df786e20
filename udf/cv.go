package udf

/*
void nbCVBind(void *info);
void nbCVExec(void *info, void *input, void *output);
*/
import "C"

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb"
)

var foldSetSeq atomic.Int64

// RegisterFolds makes scorers (one per fold) callable as nb_cv_proba(name, fold, features) until release
// is called. It implements sqlnb.FoldRegistrar.
func (db *DB) RegisterFolds(scorers []*sqlnb.Scorer) (string, func()) {
	return db.reg.RegisterFolds(scorers)
}

// RegisterFolds is DB.RegisterFolds for the functions of one database (nb_cv runs on it).
func (r *registry) RegisterFolds(scorers []*sqlnb.Scorer) (string, func()) {
	name := fmt.Sprintf("cv%d", foldSetSeq.Add(1))
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

// cvBound is nb_cv_proba or nb_cv_terms bound to a fold set: one bound scorer per fold (their category
// indexes differ).
type cvBound struct {
	folds   []*bound
	terms   bool
	em      bool
	classes []map[string]int // nb_cv_terms: per fold, label → class index
	pos     []int            // nb_cv_terms: per fold, the positive class of a two-class model (-1: none)
	bufs    sync.Pool        // *cvBufs
}

// cvBufs are the per-vector row lists of each fold, reused across vectors.
type cvBufs struct {
	rows  [][]int
	nulls []int
}

// cvFunc is the extra info of the two cross-validation functions.
type cvFunc struct {
	reg   *registry
	name  string
	terms bool
	em    bool
}

func registerCV(conn mapping.Connection, reg *registry) error {
	for _, terms := range []bool{false, true} {
		if err := registerCVFunc(conn, &cvFunc{reg: reg, name: map[bool]string{false: "nb_cv_proba", true: "nb_cv_terms"}[terms], terms: terms}); err != nil {
			return err
		}
	}
	return registerCVFunc(conn, &cvFunc{reg: reg, name: "nb_cv_em", em: true})
}

// emType is nb_cv_em's result: STRUCT(p DOUBLE[], ll DOUBLE).
func emType() mapping.LogicalType {
	d := mapping.CreateLogicalType(mapping.TypeDouble)
	defer mapping.DestroyLogicalType(&d)
	l := mapping.CreateListType(d)
	defer mapping.DestroyLogicalType(&l)
	return mapping.CreateStructType([]mapping.LogicalType{l, d}, []string{"p", "ll"})
}

// termsType is nb_cv_terms's result: STRUCT(pred VARCHAR, ll DOUBLE, brier DOUBLE).
func termsType() mapping.LogicalType {
	v := mapping.CreateLogicalType(mapping.TypeVarchar)
	d := mapping.CreateLogicalType(mapping.TypeDouble)
	defer mapping.DestroyLogicalType(&v)
	defer mapping.DestroyLogicalType(&d)
	return mapping.CreateStructType([]mapping.LogicalType{v, d, d}, []string{"pred", "ll", "brier"})
}

func registerCVFunc(conn mapping.Connection, cf *cvFunc) error {
	ret := returnType(outProba)
	if cf.terms {
		mapping.DestroyLogicalType(&ret)
		ret = termsType()
	}
	if cf.em {
		mapping.DestroyLogicalType(&ret)
		ret = emType()
	}
	return registerVarargs(conn, cf.name, ret, unsafe.Pointer(C.nbCVBind), unsafe.Pointer(C.nbCVExec), newHandle(cf))
}

//export nbCVBind
func nbCVBind(infoPtr unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: infoPtr}
	name := "sqlnb"
	defer recovered(&name, func(msg string) { mapping.ScalarFunctionBindSetError(info, msg) })
	cf := handleValue[*cvFunc](mapping.ScalarFunctionBindGetExtraInfo(info))
	name = cf.name
	fault(name, "bind")
	reg := cf.reg
	fail := func(err error) { mapping.ScalarFunctionBindSetError(info, cf.name+": "+err.Error()) }
	args, cctx, release := bindArguments(info)
	defer release()
	argc := len(args)
	name, err := foldString(cctx, info, 0, args[0])
	first := 2 // first feature argument
	if cf.terms {
		first = 4
	}
	if cf.em {
		first = 3
	}
	if err != nil || argc <= first {
		fail(fmt.Errorf("use nb_cv_proba('set', fold, features), nb_cv_terms('set', fold, label, positive class, features) or nb_cv_em('set', fold, label, features) with a fold set registered by sqlnb cv or semi-supervised training"))
		return
	}
	if (cf.terms || cf.em) && args[2].id != mapping.TypeVarchar {
		fail(fmt.Errorf("the label must be VARCHAR"))
		return
	}
	positive := ""
	if cf.terms && args[3].id != mapping.TypeSQLNull {
		if positive, err = foldString(cctx, info, 3, args[3]); err != nil {
			fail(fmt.Errorf("the positive class must be a constant string or NULL: %v", err))
			return
		}
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
	cb := &cvBound{terms: cf.terms, em: cf.em}
	spec := &scalarSpec{name: cf.name, out: outProba, reg: reg}
	for _, s := range scorers {
		b := newBound(spec, s)
		if err := b.bindFeatures(args[first:], first, cf.name+"('set', fold, t)"); err != nil {
			fail(err)
			return
		}
		cb.folds = append(cb.folds, b)
		idx := s.Model.ClassIndex()
		cb.classes = append(cb.classes, idx)
		pos := -1
		if len(s.Labels) == 2 {
			pos = 1
			if c, ok := idx[positive]; ok {
				pos = c
			}
		}
		cb.pos = append(cb.pos, pos)
	}
	mapping.ScalarFunctionSetBindData(info, newHandle(cb), deleteHandlePt)
	mapping.ScalarFunctionSetBindDataCopy(info, copyHandlePtr)
}

//export nbCVExec
func nbCVExec(infoPtr, inputPtr, outputPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: infoPtr}
	name := "nb_cv_proba"
	defer recovered(&name, func(msg string) { mapping.ScalarFunctionSetError(info, msg) })
	fault(name, "exec")
	cb := handleValue[*cvBound](mapping.ScalarFunctionGetBindData(info))
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
	bufs, _ := cb.bufs.Get().(*cvBufs)
	if bufs == nil || len(bufs.rows) != k {
		bufs = &cvBufs{rows: make([][]int, k)}
	}
	defer cb.bufs.Put(bufs)
	rows := bufs.rows
	for f := range rows {
		rows[f] = rows[f][:0]
	}
	nulls := bufs.nulls[:0]
	defer func() { bufs.nulls = nulls[:0] }()
	for i, f := range folds {
		if !valid(foldMask, i) || f < 0 || int(f) >= k || !valid(structMask, i) {
			nulls = append(nulls, i)
			continue
		}
		rows[f] = append(rows[f], i)
	}
	if cb.terms {
		cb.writeTerms(input, out, structVec, rows, nulls, n)
		return
	}
	if cb.em {
		cb.writeEM(input, out, structVec, rows, nulls, n)
		return
	}
	maxK := 0
	for _, b := range cb.folds {
		maxK = max(maxK, len(b.labels))
	}
	base := int(mapping.ListVectorGetSize(out))
	listReserve(out, base+n*maxK)
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
		s, jll := b.scoreRows(input, structVec, n, idx)
		K, m := len(b.labels), len(idx)
		var w stringWriter
		w.reset(keys, s.first)
		kernel.Posteriors(jll, m, K, vals[off:off+m*K], s.top)
		for r, i := range idx {
			for c := range K {
				w.write(off+r*K+c, int32(c), &b.labels[c])
			}
			if s.ws.NullOf(r) { // a row missing a value a component requires
				nulls = append(nulls, i)
				continue
			}
			entries[i] = listEntry{offset: uint64(off + r*K), length: uint64(K)}
		}
		off += m * K
		b.pool.Put(s)
	}
	for _, i := range nulls {
		entries[i] = listEntry{offset: uint64(off)}
		setNull(out, i)
	}
	mapping.ListVectorSetSize(out, mapping.IdxT(off))
}

// eps is scikit-learn's log-loss clipping bound for float64 posteriors (np.finfo(float).eps).
const eps = 2.220446049250313e-16

// writeTerms writes nb_cv_terms: per row the predicted class, the log-loss term (posteriors clipped to
// [ε, 1-ε] and renormalised, as scikit-learn) and the Brier term (two classes: (p(positive) - [y =
// positive])², the positive class given or the second; more: Σ_c (p_c - [y = c])²), from each fold's
// scorer.
func (cb *cvBound) writeTerms(input mapping.DataChunk, out mapping.Vector, structVec mapping.Vector, rows [][]int, nulls []int, n int) {
	labelVec := mapping.DataChunkGetVector(input, 2)
	labels, labelMask := mapping.VectorGetData(labelVec), validity(labelVec, n)
	predVec := mapping.StructVectorGetChild(out, 0)
	ll := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.StructVectorGetChild(out, 1))), n)
	brier := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.StructVectorGetChild(out, 2))), n)
	for f, idx := range rows {
		if len(idx) == 0 {
			continue
		}
		b := cb.folds[f]
		s, jll := b.scoreRows(input, structVec, n, idx)
		K, m := len(b.labels), len(idx)
		post := s.post[:K]
		var w stringWriter
		w.reset(predVec, s.first)
		for r, i := range idx {
			if !valid(labelMask, i) || s.ws.NullOf(r) {
				nulls = append(nulls, i)
				continue
			}
			y, known := cb.classes[f][stringAt(labels, i)]
			// Posteriors exp(b_c - B)/S, B = max b: the top class's term is exactly 1.
			best, top := 0, jll[r]
			for c := 1; c < K; c++ {
				if v := jll[c*m+r]; v > top {
					best, top = c, v
				}
			}
			sum := 0.0
			for c := range K {
				e := 1.0
				if c != best {
					e = math.Exp(jll[c*m+r] - top)
				}
				post[c] = e
				sum += e
			}
			clipped := false
			for c := range K {
				post[c] /= sum
				clipped = clipped || post[c] < eps || post[c] > 1-eps
			}
			switch {
			case !known:
				ll[i] = -math.Log(eps)
			case !clipped:
				// log p_y = (b_y - B) - log S: one logarithm; the clipped renormalisation is then 1 exactly.
				ll[i] = math.Log(sum) - (jll[y*m+r] - top)
			default:
				csum := 0.0
				for _, p := range post {
					csum += min(max(p, eps), 1-eps)
				}
				ll[i] = -math.Log(min(max(post[y], eps), 1-eps) / csum)
			}
			br := 0.0
			for c, p := range post {
				if K == 2 && c != cb.pos[f] {
					continue
				}
				d := p
				if known && c == y {
					d = p - 1
				}
				br += d * d
			}
			brier[i] = br
			w.write(i, int32(best), &b.labels[best])
		}
		b.pool.Put(s)
	}
	for _, i := range nulls {
		setStructNull(out, i, 3)
	}
}

// writeEM writes nb_cv_em: per row the posteriors (a list in the model's class order, as nb_predict_proba
// computes them) and the log-likelihood term of semi-supervised training: log p(x, y) = b_y for a row with
// a label, log p(x) (the log evidence) for a row whose label is NULL. A label the model does not know, or
// a missing value a component requires, gives NULL.
func (cb *cvBound) writeEM(input mapping.DataChunk, out mapping.Vector, structVec mapping.Vector, rows [][]int, nulls []int, n int) {
	labelVec := mapping.DataChunkGetVector(input, 2)
	labels, labelMask := mapping.VectorGetData(labelVec), validity(labelVec, n)
	pVec := mapping.StructVectorGetChild(out, 0)
	ll := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.StructVectorGetChild(out, 1))), n)
	maxK := 0
	for _, b := range cb.folds {
		maxK = max(maxK, len(b.labels))
	}
	base := int(mapping.ListVectorGetSize(pVec))
	listReserve(pVec, base+n*maxK)
	entries := unsafe.Slice((*listEntry)(mapping.VectorGetData(pVec)), n)
	vals := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.ListVectorGetChild(pVec))), base+n*maxK)
	off := base
	for f, idx := range rows {
		if len(idx) == 0 {
			continue
		}
		b := cb.folds[f]
		s, jll := b.scoreRows(input, structVec, n, idx)
		K, m := len(b.labels), len(idx)
		kernel.Posteriors(jll, m, K, vals[off:off+m*K], s.top)
		for r, i := range idx {
			if s.ws.NullOf(r) {
				nulls = append(nulls, i)
				continue
			}
			if valid(labelMask, i) {
				y, known := cb.classes[f][stringAt(labels, i)]
				if !known {
					nulls = append(nulls, i)
					continue
				}
				ll[i] = jll[y*m+r] + s.ws.ShiftOf(r)
			} else {
				ll[i] = kernel.LogEvidence(jll, m, K, r) + s.ws.ShiftOf(r)
			}
			entries[i] = listEntry{offset: uint64(off + r*K), length: uint64(K)}
		}
		off += m * K
		b.pool.Put(s)
	}
	for _, i := range nulls {
		entries[i] = listEntry{offset: uint64(off)}
		setStructNull(out, i, 2)
	}
	mapping.ListVectorSetSize(pVec, mapping.IdxT(off))
}

// scoreRows converts the chunk's features and scores rows idx of it (gathered into s.sub): jll holds their
// joint log-likelihoods, class-major over len(idx) rows. Put s back into b.pool when done.
func (b *bound) scoreRows(input mapping.DataChunk, structVec mapping.Vector, n int, idx []int) (*scratch, []float64) {
	s := b.scratch(n)
	b.readAll(input, structVec, n, s)
	if s.sub == nil {
		s.sub = b.scorer.NewBatch(int(mapping.VectorSize()))
	}
	s.batch.N = n
	s.batch.Gather(s.sub, idx)
	jll := s.jll[:len(b.labels)*len(idx)]
	b.scorer.JointLogLikelihood(s.sub, jll, &s.ws)
	return s, jll
}

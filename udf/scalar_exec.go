package udf

import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/internal/kernel"
)

//export nbScalarExec
func nbScalarExec(infoPtr, inputPtr, outputPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: infoPtr}
	name := "sqlnb"
	defer recovered(&name, func(msg string) { mapping.ScalarFunctionSetError(info, msg) })
	b := handleValue[*bound](mapping.ScalarFunctionGetBindData(info))
	name = b.spec.name
	fault(name, "exec")
	if b.unknownArg == 1 {
		mapping.ScalarFunctionSetError(info, fmt.Sprintf("%s: the model name must be a constant string, not a prepared-statement "+
			"parameter: the model is resolved once, when the query is bound; write its name into the statement (%s)", b.spec.name, usageOf(b.spec)))
		return
	}
	if b.unknownArg > 0 {
		mapping.ScalarFunctionSetError(info, fmt.Sprintf("%s: the type of argument %d was not known when the query was bound "+
			"(a prepared-statement parameter, or a macro parameter): cast it, as in $%d::DOUBLE, or pass the row as a struct (%s)",
			b.spec.name, b.unknownArg, b.unknownArg, usageOf(b.spec)))
		return
	}
	input := mapping.DataChunk{Ptr: inputPtr}
	out := mapping.Vector{Ptr: outputPtr}
	n := int(mapping.DataChunkGetSize(input))
	if n == 0 {
		return
	}
	s := b.scratch(n)
	defer b.pool.Put(s)
	b.execute(input, out, n, s)
}

func (b *bound) execute(input mapping.DataChunk, out mapping.Vector, n int, s *scratch) {
	batch := s.batch
	batch.N = n
	// Rows whose struct argument is NULL give NULL.
	rowOK := s.rowOK[:n]
	anyNull := false
	var structVec mapping.Vector
	var mask []uint64
	if b.struc {
		structVec = mapping.DataChunkGetVector(input, mapping.IdxT(b.structArg))
		mask = validity(structVec, n)
	}
	if mask == nil {
		for i := range rowOK {
			rowOK[i] = true
		}
	} else {
		for i := range rowOK {
			rowOK[i] = valid(mask, i)
			anyNull = anyNull || !rowOK[i]
		}
	}
	b.readAll(input, structVec, n, s)
	sc := b.scorer
	K := len(sc.Labels)
	jll := s.jll[:K*n]
	sc.JointLogLikelihood(batch, jll, &s.ws)
	// Rows that miss a value the model requires (lda, qda, logistic) give NULL.
	if null := s.ws.Null; null != nil {
		for i, isNull := range null {
			if isNull {
				rowOK[i], anyNull = false, true
			}
		}
	}
	switch b.spec.out {
	case outLabel:
		kernel.Argmax(jll, n, K, s.best, s.top)
		if b.short && !anyNull { // the common case in a tight loop: one 16-byte copy a row
			slots := unsafe.Slice((*[16]byte)(mapping.VectorGetData(out)), n)
			for i, c := range s.best[:n] {
				slots[i] = b.labels[c].inline
			}
			break
		}
		var w stringWriter
		w.reset(out, s.first)
		for i := range n {
			if rowOK[i] {
				c := s.best[i]
				w.write(i, c, &b.labels[c])
			}
		}
	case outClassProba:
		data := unsafe.Slice((*float64)(mapping.VectorGetData(out)), n)
		// Every posterior of the chunk by the vector kernels, then the asked class's: Posterior's value bit
		// for bit (Posteriors gives Posterior's), K exponentials a row either way.
		post := s.wideN(n * K)
		kernel.Posteriors(jll, n, K, post, s.top)
		var classes unsafe.Pointer
		var classMask []uint64
		if b.classArg >= 0 {
			cv := mapping.DataChunkGetVector(input, mapping.IdxT(b.classArg))
			classes, classMask = mapping.VectorGetData(cv), validity(cv, n)
		}
		for i := range n {
			c := b.classIdx
			if classes != nil {
				ci, ok := -1, valid(classMask, i)
				if ok {
					ci, ok = b.classes[stringAt(classes, i)]
				}
				if !ok {
					rowOK[i], anyNull = false, true
					continue
				}
				c = ci
			}
			data[i] = post[i*K+c]
		}
	case outEvidence:
		data := unsafe.Slice((*float64)(mapping.VectorGetData(out)), n)
		kernel.LogEvidences(jll, n, K, data, s.wideN(n*K), s.top) // LogEvidence's values, by the vector kernels
		for i := range n {
			data[i] += s.ws.ShiftOf(i)
		}
	case outExplain:
		anyNull = b.writeExplain(input, out, s, n, rowOK) || anyNull
	default:
		b.writeMaps(out, jll, n, K, s)
	}
	if anyNull {
		for i, ok := range rowOK {
			if !ok {
				setNull(out, i)
			}
		}
	}
}

type listEntry struct{ offset, length uint64 }

// writeMaps writes one MAP(VARCHAR, DOUBLE) per row: class → posterior, log posterior or joint
// log-likelihood. Rows that end up NULL get an empty entry and are marked NULL by the caller.
func (b *bound) writeMaps(out mapping.Vector, jll []float64, n, K int, s *scratch) {
	base := int(mapping.ListVectorGetSize(out))
	listReserve(out, base+n*K)
	entries := unsafe.Slice((*listEntry)(mapping.VectorGetData(out)), n)
	child := mapping.ListVectorGetChild(out)
	keys := mapping.StructVectorGetChild(child, 0)
	vals := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.StructVectorGetChild(child, 1))), base+n*K)
	var w stringWriter
	w.reset(keys, s.first)
	switch b.spec.out {
	case outProba:
		kernel.Posteriors(jll, n, K, vals[base:base+n*K], s.top)
	case outLogProba:
		kernel.LogPosteriors(jll, n, K, vals[base:base+n*K], s.top)
	}
	for i := range n {
		off := base + i*K
		entries[i] = listEntry{offset: uint64(off), length: uint64(K)}
		if b.spec.out == outJLL {
			shift := s.ws.ShiftOf(i)
			if math.IsInf(shift, 0) {
				// The top score is beyond float64's range: each class's own score, by the row
				// reference (difference + shift would give NaN where both are infinite).
				b.scorer.RowScores(s.batch, i, vals[off:off+K])
				continue
			}
			for c := range K {
				vals[off+c] = jll[c*n+i] + shift
			}
		}
	}
	for c := range K {
		w.write(base+c, int32(c), &b.labels[c])
	}
	w.repeat(base, K, n)
	mapping.ListVectorSetSize(out, mapping.IdxT(base+n*K))
}

// readAll converts every feature argument of the chunk into s.batch.
func (b *bound) readAll(input mapping.DataChunk, structVec mapping.Vector, n int, s *scratch) {
	for i := range b.readers {
		r := &b.readers[i]
		var vec mapping.Vector
		if r.child >= 0 {
			vec = mapping.StructVectorGetChild(structVec, mapping.IdxT(r.child))
		} else {
			vec = mapping.DataChunkGetVector(input, mapping.IdxT(r.arg))
		}
		r.read(vec, n, s.batch, s.num[r.in.Feature])
	}
}

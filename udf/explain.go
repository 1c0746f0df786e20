package udf

import (
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// explainFields are the fields of nb_explain's list elements: the two classes compared (the same in every
// element of a row), then one feature's value and log-likelihood ratio (the prior term last, feature NULL).
var explainFields = []string{"class", "versus", "feature", "value", "contribution"}

// explainsVersus reports whether nb_explain's feature arguments end with the class to explain against:
// a STRUCT and one more argument, or every feature positionally and one more.
func explainsVersus(feats []argument, features int) bool {
	if len(feats) == 2 && feats[0].id == mapping.TypeStruct {
		return true
	}
	return len(feats) == features+1 && !(len(feats) == 1 && feats[0].id == mapping.TypeStruct)
}

// writeExplain writes nb_explain's list per row: the classes compared, then each feature's value and
// contribution by |contribution|, then the prior term (feature NULL); a missing value is NULL. With a
// versus class argument read per row, a row whose class is NULL or unknown is marked in rowOK (it gives
// NULL) and anyNull is true.
func (b *bound) writeExplain(input mapping.DataChunk, out mapping.Vector, s *scratch, n int, rowOK []bool) (anyNull bool) {
	m := len(b.scorer.Inputs) + 1
	K := len(b.labels)
	base := int(mapping.ListVectorGetSize(out))
	listReserve(out, base+n*m)
	entries := unsafe.Slice((*listEntry)(mapping.VectorGetData(out)), n)
	child := mapping.ListVectorGetChild(out)
	var classes, versus stringWriter
	classes.reset(mapping.StructVectorGetChild(child, 0), make([]int, K))
	versus.reset(mapping.StructVectorGetChild(child, 1), make([]int, K))
	fv, vv := mapping.StructVectorGetChild(child, 2), mapping.StructVectorGetChild(child, 3)
	contrib := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.StructVectorGetChild(child, 4))), base+n*m)
	var perRow unsafe.Pointer
	var perRowMask []uint64
	if b.versus && b.classArg >= 0 {
		cv := mapping.DataChunkGetVector(input, mapping.IdxT(b.classArg))
		perRow, perRowMask = mapping.VectorGetData(cv), validity(cv, n)
	}
	// Elements are written back to back: a row without an explanation (NULL) takes none, so no element of
	// the child vectors is left unwritten (DuckDB may copy the whole child range).
	off := base
	for i := range n {
		entries[i] = listEntry{offset: uint64(off), length: 0}
		vs := -1
		if b.versus {
			vs = b.classIdx
			if perRow != nil {
				c, ok := -1, valid(perRowMask, i)
				if ok {
					c, ok = b.classes[stringAt(perRow, i)]
				}
				if !ok {
					rowOK[i], anyNull = false, true
				}
				vs = c
			}
		}
		if !rowOK[i] {
			continue
		}
		a, c, list := b.scorer.Explain(s.batch, i, vs)
		if a < 0 { // a row missing a value the model requires
			rowOK[i], anyNull = false, true
			continue
		}
		entries[i].length = uint64(len(list))
		for e, x := range list {
			idx := off + e
			classes.write(idx, int32(a), &b.labels[a])
			versus.write(idx, int32(c), &b.labels[c])
			if x.Feature == "" {
				setNull(fv, idx)
			} else {
				assignString(fv, idx, x.Feature)
			}
			if x.Value == "" {
				setNull(vv, idx)
			} else {
				assignString(vv, idx, x.Value)
			}
			contrib[idx] = x.LLR
		}
		off += len(list)
	}
	mapping.ListVectorSetSize(out, mapping.IdxT(off))
	return anyNull
}

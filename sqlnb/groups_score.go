package sqlnb

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// groupDispatch is the part of a per-group model's Scorer that picks each row's group model: the group
// scorers, how their classes and category codes map to the pooled scorer's, and the index from the group
// columns' category codes to a group.
type groupDispatch struct {
	scorers []*Scorer
	// classOf[k][c] is the pooled class index of group k's class c.
	classOf [][]int
	// remap[k][j] maps the pooled scorer's category code of input j to group k's (nil: number input, or a
	// binary input whose codes do not depend on the model).
	remap [][][]int32
	// A row's group: its group inputs' codes c_g (each < radix[g]) combine into Σ c_g·stride[g], which index
	// maps to the group (absent: the pooled model).
	radix, stride []int64
	index         map[int64]int32
	// dense maps the combined code to the group when the codes are few (-1: the pooled model), instead of
	// index.
	dense []int32
	// rowwise: every model is one quadratic component (Gaussian features) and nothing else: each row is
	// scored as its model's vector kernel scores it, reading the model's parameters from its entry of table.
	// Model m (0: the pooled model, g+1: group g) has width = K(1+2F) values at table[m·width:]: the base
	// scores of the K pooled classes, then per input (of cols, F of them) the K means and the K 1/(2 var). A
	// class the model lacks (listed in lacks[m] and set to -Inf after) repeats the model's first class, so
	// that it is not finite only when that class is not. table ends with 4 more values (the AVX2 kernel
	// reads four classes at a time).
	rowwise bool
	cols    []int
	classes int
	table   []float64
	width   int
	lacks   [][]int
}

// layoutRows sets up rowwiseJLL when every model (pooled sc[0], groups sc[1:]) is one quadratic component
// with no required input and the same inputs.
func (d *groupDispatch) layoutRows(sc []*Scorer) {
	K := len(sc[0].Labels)
	var cols []int
	for m, s := range sc {
		if len(s.Components) != 1 || len(s.required) > 0 {
			return
		}
		q, ok := s.Components[0].(nb.QuadraticComponent)
		if !ok {
			return
		}
		c0, _, ok := q.Quadratic()
		if !ok || (m > 0 && !slices.Equal(c0, cols)) {
			return
		}
		cols = c0
	}
	F := len(cols)
	width := K * (1 + 2*F)
	table := make([]float64, len(sc)*width+4)
	lacks := make([][]int, len(sc))
	for m, s := range sc {
		_, params, _ := s.Components[0].(nb.QuadraticComponent).Quadratic()
		entry := table[m*width:][:width]
		// set writes the model's class c as pooled class pc.
		set := func(pc, c int) {
			entry[pc] = s.base[c]
			for k := range F {
				entry[K+2*K*k+pc], entry[2*K+2*K*k+pc] = params[2*(c*F+k)], params[2*(c*F+k)+1]
			}
		}
		has := make([]bool, K)
		for c := range s.Labels {
			pc := c
			if m > 0 {
				pc = d.classOf[m-1][c]
			}
			has[pc] = true
			set(pc, c)
		}
		for pc, ok := range has {
			if !ok {
				set(pc, 0)
				lacks[m] = append(lacks[m], pc)
			}
		}
	}
	d.cols, d.classes, d.table, d.width, d.lacks = cols, K, table, width, lacks
	d.rowwise = true
}

// groupScratch is a Workspace's space for per-group scoring: the rows of each group, one group's rows
// gathered into sub, and sub's scores.
type groupScratch struct {
	group  []int32 // per row: its group, or len(scorers) for the pooled model (rowwiseJLL: its model)
	order  []int   // rows sorted by group (counting sort)
	start  []int   // per group: where its rows begin in order (len(scorers)+2 entries)
	sub    *nb.Batch
	subOut []float64
	subWS  Workspace
	// rowwiseJLL: the input columns, one row's scores, the rows to rescore.
	x      []unsafe.Pointer
	xt     []float64
	row    []float64
	bad    []bool
	scores []nb.XFloat
}

// compileGroups compiles a per-group model, which the caller validated (Model.Validate validates the pooled
// model and every group's): the pooled scorer (returned, with m as its Model), one scorer per
// group, and the group inputs (one category input per group column, whose values are the column's values
// over the groups).
func compileGroups(m *nb.Model) (*Scorer, error) {
	s, err := compileValid(m.Pooled())
	if err != nil {
		return nil, err
	}
	s.Model = m
	if len(m.By) == 0 {
		return s, nil
	}
	d := &groupDispatch{index: make(map[int64]int32, len(m.Groups))}
	for g, b := range m.By {
		set := map[string]bool{}
		for _, grp := range m.Groups {
			set[grp.Key[g]] = true
		}
		in := &nb.Input{Feature: len(s.Inputs) + g, Name: b.Name, Type: b.Type, Kind: nb.CategoryInput}
		in.SetValues(nb.SortedKeys(set))
		s.GroupInputs = append(s.GroupInputs, in)
		d.radix = append(d.radix, int64(len(in.Values)))
	}
	d.stride = make([]int64, len(m.By))
	stride := int64(1)
	for g := range m.By {
		d.stride[g] = stride
		stride *= max(d.radix[g], 1)
	}
	pooledClass := m.ClassIndex()
	for k := range m.Groups {
		gs, err := compileValid(m.Member(k))
		if err != nil {
			return nil, fmt.Errorf("group %s: %w", nb.GroupKey(m.Groups[k].Key), err)
		}
		key := int64(0)
		for g, in := range s.GroupInputs {
			key += int64(in.Index[m.Groups[k].Key[g]]) * d.stride[g]
		}
		d.index[key] = int32(k)
		classOf := make([]int, len(gs.Labels))
		for c, l := range gs.Labels {
			classOf[c] = pooledClass[l]
		}
		remap := make([][]int32, len(s.Inputs))
		for j, pin := range s.Inputs {
			gin := gs.Inputs[j]
			if pin.Kind != nb.CategoryInput || pin.Binary {
				continue
			}
			r := make([]int32, len(pin.Values)+2)
			for code, v := range pin.Values {
				r[code] = gin.Lookup(v)
			}
			r[pin.Unseen()], r[pin.Missing()] = gin.Unseen(), gin.Missing()
			remap[j] = r
		}
		d.scorers, d.classOf, d.remap = append(d.scorers, gs), append(d.classOf, classOf), append(d.remap, remap)
	}
	if len(d.index) > 0 && stride <= 1<<20 {
		d.dense = make([]int32, stride)
		for i := range d.dense {
			d.dense[i] = -1
		}
		for key, k := range d.index {
			d.dense[key] = k
		}
	}
	d.layoutRows(append([]*Scorer{s}, d.scorers...))
	s.groups = d
	return s, nil
}

// rowwiseJLL is groupedJLL for models of one quadratic component (layoutRows). It is the Gaussian vector
// kernel with each row's parameters read from its model's entry of one table instead of registers: rows in
// row order (no sorting by group), each row's classes and inputs in one pass over its entry (scoreRows). The
// rows with a NULL number or a score that is not finite are then rescored with their model's row reference
// (as JointLogLikelihood's fixup does).
func (s *Scorer) rowwiseJLL(b *nb.Batch, out []float64, ws *Workspace, gs *groupScratch) {
	d := s.groups
	n, K, F := b.N, len(s.Labels), len(d.cols)
	ws.Shift, ws.Null = nil, nil
	gs.row = grow(gs.row, K)
	gs.bad = grow(gs.bad, n)
	bad := gs.bad
	clear(bad)
	for _, j := range s.numbers {
		mask := b.Valid[j]
		if mask == nil {
			continue
		}
		for i := range n {
			if !nb.IsValid(mask, i) {
				bad[i] = true
			}
		}
	}
	// Each row's model m (0: pooled).
	gs.group = grow(gs.group, n)
	model := gs.group
	s.modelsOf(b, model)
	partial := false
	for _, m := range model {
		partial = partial || d.lacks[m] != nil // (which also checks that m is a model: scoreRows reads its entry)
	}
	gs.x = grow(gs.x, F)
	for k, j := range d.cols {
		gs.x[k] = unsafe.Pointer(unsafe.SliceData(b.Num[j][:n]))
	}
	d.scoreRows(gs.x, model[:n], out[:K*n], bad, &gs.xt)
	if partial {
		inf := math.Inf(-1)
		for i, m := range model[:n] {
			for _, c := range d.lacks[m] {
				out[c*n+i] = inf
			}
		}
	}
	for i, isBad := range bad {
		if !isBad {
			continue
		}
		k := int(model[i]) - 1
		sc, classOf := s, []int(nil)
		if k >= 0 {
			sc, classOf = d.scorers[k], d.classOf[k]
		}
		gs.scores = grow(gs.scores, K)
		row := gs.row[:len(sc.Labels)]
		shift, shifted := sc.rescore(b, i, gs.scores[:len(sc.Labels)], row)
		if shifted {
			if ws.Shift == nil {
				ws.Shift = make([]float64, n)
			}
			ws.Shift[i] = shift
		}
		for c, v := range row {
			pc := c
			if classOf != nil {
				pc = classOf[c]
			}
			out[pc*n+i] = v
		}
	}
}

// scoreRows writes the scores of the rows whose models are model (out class by class: out[c·n+i]) and marks
// in bad the rows with a score that is not finite. Row i's class c score is that of its model's vector kernel
// (gaussianComponent.Add after the base score), the same operations in the same order, so the same bits: from
// the base score, subtract the terms (x_k - mean)² · 1/(2 var) of each block of four inputs as
// ((e0 + e1) + e2) + e3, then the rest one by one, each term rounded (no fused multiply-add). x holds the inputs' columns (F of them), each of at least n
// values; every model must be < len(table)/width (the caller checked). xt is scratch space for the Go loop.
func (d *groupDispatch) scoreRows(x []unsafe.Pointer, model []int32, out []float64, bad []bool, xt *[]float64) {
	n, K, F := len(model), d.classes, len(d.cols)
	if n == 0 {
		return
	}
	if len(x) != F || len(bad) < n || len(out) != K*n || d.width != K*(1+2*F) || len(d.table)%d.width != 4 {
		panic("sqlnb: scoreRows: bad layout")
	}
	if kernel.UseAVX2 {
		kernel.ScoreRowsAVX2(&d.table[0], uintptr(d.width)*8, &x[0], F, K, &model[0], n, &out[0], &bad[0])
		return
	}
	// The inputs row by row, for the Go loop.
	*xt = grow(*xt, n*F)
	for k, col := range x {
		v, t := unsafe.Slice((*float64)(col), n), (*xt)[k:]
		for i := range n {
			t[i*F] = v[i]
		}
	}
	scoreRowsGo(d.table, d.width, *xt, F, model, out, bad, K)
}

// scoreRowsGo is scoreRows in Go, class by class; scoreRowsAVX2 computes four classes at once. xt holds the
// inputs row by row (row i's F values at xt[i·F:]). (Offsets are added to a pointer only where a value is
// read or written, so that no pointer leaves its allocation.)
func scoreRowsGo(table []float64, width int, xt []float64, F int, model []int32, out []float64, bad []bool, K int) {
	const f8 = 8
	n := len(model)
	tab, xp, outp := unsafe.Pointer(unsafe.SliceData(table)), unsafe.Pointer(unsafe.SliceData(xt)), unsafe.Pointer(unsafe.SliceData(out))
	W, classes, classOut := uintptr(width)*f8, uintptr(K)*f8, uintptr(n)*f8
	num := func(p unsafe.Pointer, off uintptr) float64 { return *(*float64)(unsafe.Add(p, off)) }
	for i, m := range model {
		e := unsafe.Add(tab, uintptr(m)*W)
		xr := unsafe.Add(xp, uintptr(i*F)*f8)
		chk := 0.0
		for c := range K {
			// Class c's base score is at e + c, its mean of input k at e + c + K + 2Kk, its 1/(2 var) K further.
			at := uintptr(c) * f8
			v := num(e, at)
			q := at + classes
			k := 0
			for ; F-k >= 4; k += 4 {
				xk := uintptr(k) * f8
				d0, d1, d2, d3 := num(xr, xk)-num(e, q), num(xr, xk+8)-num(e, q+2*classes), num(xr, xk+16)-num(e, q+4*classes), num(xr, xk+24)-num(e, q+6*classes)
				h0, h1, h2, h3 := num(e, q+classes), num(e, q+3*classes), num(e, q+5*classes), num(e, q+7*classes)
				v -= float64(d0*d0*h0) + float64(d1*d1*h1) + float64(d2*d2*h2) + float64(d3*d3*h3)
				q += 8 * classes
			}
			for ; k < F; k++ {
				dx := num(xr, uintptr(k)*f8) - num(e, q)
				v -= float64(dx * dx * num(e, q+classes))
				q += 2 * classes
			}
			*(*float64)(unsafe.Add(outp, uintptr(c)*classOut+uintptr(i)*f8)) = v
			chk += v - v // 0 while every score is finite, NaN after one that is not
		}
		if chk != 0 {
			bad[i] = true
		}
	}
}

// modelsOf sets model[i] to the model that scores row i of b: GroupOf(b, i)+1 (0: the pooled model).
func (s *Scorer) modelsOf(b *nb.Batch, model []int32) {
	d := s.groups
	if len(s.GroupInputs) == 1 && d.dense != nil {
		radix, dense := int32(d.radix[0]), d.dense
		for i, code := range b.Cat[s.GroupInputs[0].Feature][:len(model)] {
			m := int32(0)
			if uint32(code) < uint32(radix) {
				m = dense[code] + 1
			}
			model[i] = m
		}
		return
	}
	for i := range model {
		model[i] = int32(s.GroupOf(b, i) + 1)
	}
}

// GroupOf returns the group whose model scores row i of b (its index in Model.Groups), or -1 for the pooled
// model (a group not seen in training, a NULL group value, or a group without a model of its own).
func (s *Scorer) GroupOf(b *nb.Batch, i int) int {
	d := s.groups
	if d == nil {
		return -1
	}
	key := int64(0)
	for g, in := range s.GroupInputs {
		code := int64(b.Cat[in.Feature][i])
		if code >= d.radix[g] {
			return -1
		}
		key += code * d.stride[g]
	}
	if d.dense != nil {
		return int(d.dense[key])
	}
	if k, ok := d.index[key]; ok {
		return int(k)
	}
	return -1
}

// gatherGroup copies rows idx of b into dst (a batch with b's feature inputs), translating category codes
// to group k's (k < 0: the pooled model's, unchanged).
func (s *Scorer) gatherGroup(b, dst *nb.Batch, k int, idx []int) {
	n := len(idx)
	dst.N = n
	for j, in := range s.Inputs {
		switch in.Kind {
		case nb.NumberInput:
			b.GatherNumbers(dst, j, idx)
		case nb.CategoryInput:
			src, d := b.Cat[j], dst.Cat[j][:n]
			var remap []int32
			if k >= 0 {
				remap = s.groups.remap[k][j]
			}
			if remap == nil {
				for r, i := range idx {
					d[r] = src[i]
				}
				continue
			}
			for r, i := range idx {
				d[r] = remap[src[i]]
			}
		}
	}
}

// groupedJLL is JointLogLikelihood for a per-group model: rows are sorted by group (counting sort), each
// group's rows are gathered (category codes translated) and scored by its model, and their scores written
// back in the pooled class order, -Inf for the classes the group lacks. Rows of no group's model are scored
// by the pooled model. ws holds every buffer: no allocation once they have grown.
func (s *Scorer) groupedJLL(b *nb.Batch, out []float64, ws *Workspace) {
	d := s.groups
	n, K, G := b.N, len(s.Labels), len(d.scorers)
	if ws.groups == nil {
		ws.groups = &groupScratch{}
	}
	gs := ws.groups
	if d.rowwise {
		s.rowwiseJLL(b, out, ws, gs)
		return
	}
	gs.group = grow(gs.group, n)
	gs.order = grow(gs.order, n)
	gs.start = grow(gs.start, G+2)
	clear(gs.start)
	for i := range n {
		k := s.GroupOf(b, i)
		if k < 0 {
			k = G
		}
		gs.group[i] = int32(k)
		gs.start[k+1]++
	}
	for k := 1; k < G+2; k++ {
		gs.start[k] += gs.start[k-1]
	}
	for i := range n {
		k := gs.group[i]
		gs.order[gs.start[k]] = i
		gs.start[k]++
	}
	for k := G; k > 0; k-- { // start[k] now ends group k: shift back
		gs.start[k] = gs.start[k-1]
	}
	gs.start[0] = 0
	if gs.sub == nil || len(gs.subOut) < n*K {
		gs.sub = s.newFeatureBatch(max(n, 2048))
		gs.subOut = make([]float64, max(n, 2048)*K)
	}
	ws.Shift, ws.Null = nil, nil
	for k := 0; k <= G; k++ {
		idx := gs.order[gs.start[k]:gs.start[k+1]]
		if len(idx) == 0 {
			continue
		}
		m := len(idx)
		sc, classOf, grp := s, []int(nil), -1
		if k < G {
			sc, classOf, grp = d.scorers[k], d.classOf[k], k
		}
		s.gatherGroup(b, gs.sub, grp, idx)
		sub := gs.subOut[:m*len(sc.Labels)]
		if grp < 0 {
			s.pooledJLL(gs.sub, sub, &gs.subWS)
		} else {
			sc.JointLogLikelihood(gs.sub, sub, &gs.subWS)
		}
		if classOf != nil && len(classOf) < K {
			for c := range K {
				o := out[c*n:]
				for _, i := range idx {
					o[i] = math.Inf(-1)
				}
			}
		}
		for c := range len(sc.Labels) {
			pc := c
			if classOf != nil {
				pc = classOf[c]
			}
			o, src := out[pc*n:], sub[c*m:]
			for r, i := range idx {
				o[i] = src[r]
			}
		}
		if gs.subWS.Null != nil {
			if ws.Null == nil {
				ws.Null = ws.nullBuf(n)
			}
			for r, i := range idx {
				ws.Null[i] = gs.subWS.Null[r]
			}
		}
		if gs.subWS.Shift != nil {
			if ws.Shift == nil {
				ws.Shift = make([]float64, n)
			}
			for r, i := range idx {
				ws.Shift[i] = gs.subWS.Shift[r]
			}
		}
	}
}

// newFeatureBatch is NewBatch for the model's features only (no group inputs).
func (s *Scorer) newFeatureBatch(n int) *nb.Batch { return s.newBatch(n, nil) }

// grow returns buf with length n, reallocated only when too small.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// rowGroup returns the scorer, the one-row batch (group codes) and the class map with which row i of b is
// scored: the pooled scorer, b and i itself for a row of no group.
func (s *Scorer) rowGroup(b *nb.Batch, i int) (sc *Scorer, gb *nb.Batch, gi int, classOf []int) {
	k := s.GroupOf(b, i)
	if k < 0 {
		return s, b, i, nil
	}
	gb = s.newFeatureBatch(1)
	s.gatherGroup(b, gb, k, []int{i})
	return s.groups.scorers[k], gb, 0, s.groups.classOf[k]
}

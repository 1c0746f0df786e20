package nb

import "math"

// compiler is what a Family compiles against: the model, its class index and the effective smoothing and
// e1071 rule, and the inputs the components create.
type Compiler struct {
	Model  *Model
	K      int
	Class  map[string]int
	Alpha  float64
	Rule   E1071Rule
	Inputs []*Input
	Pos    map[string]int
}

// input creates the Input of feature f.
func (cc *Compiler) Input(f Feature, kind InputKind) *Input {
	j := cc.Pos[f.Name]
	in := &Input{Feature: j, Name: f.Name, Type: f.Type, Kind: kind}
	cc.Inputs[j] = in
	return in
}

// e1071Rule is e1071's prediction rule: a per-feature probability or density ≤ eps counts as threshold.
type E1071Rule struct {
	On                           bool
	Threshold, Eps, LogThreshold float64
}

// apply takes a per-feature log-probability t and returns log(threshold) if exp(t) ≤ eps, else t.
func (r E1071Rule) Apply(t float64) float64 {
	if math.Exp(t) <= r.Eps {
		return r.LogThreshold
	}
	return t
}

// applyProb takes a per-feature probability or density p and returns log(threshold) if p ≤ eps, else log p.
func (r E1071Rule) ApplyProb(p float64) float64 {
	if p <= r.Eps {
		return r.LogThreshold
	}
	return math.Log(p)
}

// classPriors returns p(c) per class by the model's prior rule: fit n_c/n (weighted: w_c/w), smoothed
// (n_c + α)/(n + αK), uniform 1/K, or given.
func ClassPriors(m *Model) []float64 {
	K := float64(len(m.Classes))
	total := 0.0
	for _, c := range m.Classes {
		total += c.Weight
	}
	out := make([]float64, len(m.Classes))
	for c, cl := range m.Classes {
		switch m.Params.Text("priors") {
		case PriorsSmoothed:
			out[c] = (cl.Weight + m.Params.Float("alpha")) / (total + m.Params.Float("alpha")*K)
		case PriorsUniform:
			out[c] = 1 / K
		case PriorsGiven:
			out[c] = cl.Prior
		default:
			out[c] = cl.Weight / total
		}
	}
	return out
}

// Batch is a vector of rows to score, one column per model feature (model order), decoded as the feature's
// Input says.
type Batch struct {
	// N is the number of rows.
	N int
	// Num holds the values of number inputs (nil for the others), length ≥ N.
	Num [][]float64
	// Valid holds, per number input, a DuckDB validity mask: bit i%64 of word i/64 is set when row i is not
	// NULL. nil means no NULLs.
	Valid [][]uint64
	// Cat holds the codes of category inputs (nil for the others): 0..J-1 a training value, Unseen() an
	// unseen one, Missing() NULL.
	Cat [][]int32
	// Sparse holds the terms of terms inputs (nil for the others).
	Sparse []*Sparse

	masks [][]uint64 // validity buffers owned by the batch (Gather)
}

// isValid reports whether row i is valid in a DuckDB validity mask (nil: all valid).
func IsValid(mask []uint64, i int) bool {
	return mask == nil || mask[i>>6]&(1<<(uint(i)&63)) != 0
}

// gatherNumbers copies rows idx of number input j of b, with its validity, into dst.
func (b *Batch) GatherNumbers(dst *Batch, j int, idx []int) {
	n := len(idx)
	src, d := b.Num[j], dst.Num[j][:n]
	for r, i := range idx {
		d[r] = src[i]
	}
	dst.Valid[j] = nil
	if mask := b.Valid[j]; mask != nil {
		out := dst.validBuf(j, n)
		for r, i := range idx {
			if IsValid(mask, i) {
				out[r>>6] |= 1 << (uint(r) & 63)
			}
		}
		dst.Valid[j] = out
	}
}

// Gather copies rows idx of b into dst (a batch of the same scorer from NewBatch) and sets dst.N.
func (b *Batch) Gather(dst *Batch, idx []int) {
	n := len(idx)
	dst.N = n
	for j := range b.Num {
		if b.Num[j] != nil {
			b.GatherNumbers(dst, j, idx)
		}
		if b.Cat[j] != nil {
			src, d := b.Cat[j], dst.Cat[j][:n]
			for r, i := range idx {
				d[r] = src[i]
			}
		}
		if src := b.Sparse[j]; src != nil {
			d := dst.Sparse[j]
			d.Reset()
			for _, i := range idx {
				for e := src.Off[i]; e < src.Off[i+1]; e++ {
					d.Add(src.Idx[e], src.Val[e])
				}
				if src.Null[i] {
					d.EndNullRow()
				} else {
					d.EndRow()
				}
			}
		}
	}
}

// validBuf returns a cleared validity buffer of feature j for n rows, owned by b.
func (b *Batch) validBuf(j, n int) []uint64 {
	if b.masks == nil {
		b.masks = make([][]uint64, len(b.Num))
	}
	w := (n + 63) / 64
	if cap(b.masks[j]) < w {
		b.masks[j] = make([]uint64, w)
	}
	m := b.masks[j][:w]
	clear(m)
	return m
}

package sqlnb

import (
	"math"
)

// Batch is a vector of rows to score, one column per model feature (model order).
type Batch struct {
	// N is the number of rows.
	N int
	// Num holds the values of Gaussian features (nil for the others), length ≥ N.
	Num [][]float64
	// Valid holds, per Gaussian feature, a DuckDB validity mask: bit i%64 of word i/64 is set when row i
	// is not NULL. nil means no NULLs.
	Valid [][]uint64
	// Cat holds the category index of categorical and Bernoulli features (nil for Gaussian ones):
	// 0..J-1 a training value, Unseen() (J) an unseen one, Missing() (J+1) NULL.
	Cat [][]int32
	// Sparse holds the terms of text features (nil for the others).
	Sparse []*Sparse

	masks [][]uint64 // validity buffers owned by the batch (Gather)
}

// NewBatch returns a batch of n rows with buffers for every feature of s: Num for Gaussian features,
// Cat for the others, no validity masks.
func (s *Scorer) NewBatch(n int) *Batch {
	b := &Batch{N: n, Num: make([][]float64, len(s.Features)), Valid: make([][]uint64, len(s.Features)),
		Cat: make([][]int32, len(s.Features)), Sparse: make([]*Sparse, len(s.Features))}
	for j, f := range s.Features {
		switch {
		case f.Kind.Numeric():
			b.Num[j] = make([]float64, n)
		case f.Kind.IsText():
			b.Sparse[j] = &Sparse{}
			b.Sparse[j].Reset()
		default:
			b.Cat[j] = make([]int32, n)
		}
	}
	return b
}

// isValid reports whether row i is valid in a DuckDB validity mask (nil: all valid).
func isValid(mask []uint64, i int) bool {
	return mask == nil || mask[i>>6]&(1<<(uint(i)&63)) != 0
}

// JointLogLikelihood writes b_c = log p(c) + Σ_j log p(x_j | c) (seed 004) for every row of b into out,
// class-major: out[c*N + i], len(out) ≥ K*N. Missing values (NULL, NaN, ±Inf in a Gaussian feature,
// NULL in a categorical one) are marginalised: they add nothing (seed 004). A row that every class
// finds impossible (α = 0 and zero counts) is rescored with α = 1e-10. scratch, if len ≥ N, avoids an
// allocation.
func (s *Scorer) JointLogLikelihood(b *Batch, out []float64, scratch []bool) {
	n, K := b.N, len(s.Labels)
	for c := range K {
		o := out[c*n : c*n+n]
		base := s.base[c]
		for i := range o {
			o[i] = base
		}
		g := s.gauss
		for len(g) >= 4 {
			f0, f1, f2, f3 := &s.Features[g[0]], &s.Features[g[1]], &s.Features[g[2]], &s.Features[g[3]]
			x0, x1, x2, x3 := b.Num[g[0]][:n], b.Num[g[1]][:n], b.Num[g[2]][:n], b.Num[g[3]][:n]
			m0, m1, m2, m3 := f0.Mean[c], f1.Mean[c], f2.Mean[c], f3.Mean[c]
			h0, h1, h2, h3 := f0.HalfInvVar[c], f1.HalfInvVar[c], f2.HalfInvVar[c], f3.HalfInvVar[c]
			for i := range o {
				d0, d1, d2, d3 := x0[i]-m0, x1[i]-m1, x2[i]-m2, x3[i]-m3
				o[i] -= d0*d0*h0 + d1*d1*h1 + d2*d2*h2 + d3*d3*h3
			}
			g = g[4:]
		}
		for _, j := range g {
			f := &s.Features[j]
			x := b.Num[j][:n]
			m, h := f.Mean[c], f.HalfInvVar[c]
			for i := range o {
				d := x[i] - m
				o[i] -= d * d * h
			}
		}
		for _, j := range s.cats {
			lp := s.Features[j].LogProb[c]
			idx := b.Cat[j][:n]
			for i := range o {
				o[i] += lp[idx[i]]
			}
		}
		for _, j := range s.sums {
			w := s.Features[j].Weight[c]
			x := b.Num[j][:n]
			for i := range o {
				o[i] += x[i] * w
			}
		}
		for _, j := range s.texts {
			f, sp := &s.Features[j], b.Sparse[j]
			for i := range o {
				o[i] += f.textTerm(sp, i, c, K, false)
			}
		}
	}
	s.fixup(b, out, scratch)
}

// fixup rescores, row by row, the rows the vector kernel cannot: a NULL Gaussian value (its slot holds
// garbage) or a non-finite result (NaN or ±Inf input, or -Inf from a zero probability).
func (s *Scorer) fixup(b *Batch, out []float64, bad []bool) {
	n, K := b.N, len(s.Labels)
	if len(bad) < n {
		bad = make([]bool, n)
	}
	bad = bad[:n]
	clear(bad)
	any := false
	for j, f := range s.Features {
		mask := b.Valid[j]
		if !f.Kind.Numeric() {
			continue
		}
		if mask == nil {
			continue
		}
		for w := 0; w*64 < n; w++ {
			if mask[w] == ^uint64(0) {
				continue
			}
			for i := w * 64; i < n && i < w*64+64; i++ {
				if mask[w]&(1<<(uint(i)&63)) == 0 {
					bad[i], any = true, true
				}
			}
		}
	}
	for c := range K {
		for i, v := range out[c*n : c*n+n] {
			if v-v != 0 {
				bad[i], any = true, true
			}
		}
	}
	if !any {
		return
	}
	var row [64]float64
	dst := row[:0]
	if K > len(row) {
		dst = make([]float64, K)
	}
	dst = dst[:K]
	for i, isBad := range bad {
		if !isBad {
			continue
		}
		s.scoreRow(b, i, dst, false)
		if allNegInf(dst) {
			s.scoreRow(b, i, dst, true)
		}
		for c := range K {
			out[c*n+i] = dst[c]
		}
	}
}

func allNegInf(v []float64) bool {
	for _, x := range v {
		if !math.IsInf(x, -1) {
			return false
		}
	}
	return true
}

// scoreRow computes the joint log-likelihood of row i skipping missing and non-finite values (featureTerm);
// floor uses the α = 1e-10 tables for categorical features when the model has α = 0.
func (s *Scorer) scoreRow(b *Batch, i int, dst []float64, floor bool) {
	for c := range dst {
		dst[c] = s.rowScore(b, i, c, floor)
	}
}

// Argmax writes, for every row, the index of the class with the largest joint log-likelihood in jll
// (class-major, as JointLogLikelihood writes it); ties go to the first class in model order. top is
// scratch of length ≥ n. The loops run class by class over contiguous columns without branches.
func Argmax(jll []float64, n, K int, dst []int32, top []float64) {
	dst, top = dst[:n], top[:n]
	copy(top, jll[:n])
	clear(dst)
	for c := 1; c < K; c++ {
		col := jll[c*n : c*n+n]
		ci := int32(c)
		for i, v := range col {
			t := top[i]
			var g int32
			if v > t {
				g = 1
			}
			dst[i] += g * (ci - dst[i])
			top[i] = max(v, t)
		}
	}
}

// ClassPosterior returns p(c | x) for row i as 1 / Σ_c' exp(b_c' - b_c): K-1 exponentials (one for two
// classes), exact in the limits (a far more likely class gives exp → +Inf and p = 0).
func ClassPosterior(jll []float64, n, K, i, c int) float64 {
	bc := jll[c*n+i]
	sum := 1.0
	for d := range K {
		if d != c {
			sum += math.Exp(jll[d*n+i] - bc)
		}
	}
	return 1 / sum
}

// LogPosterior turns the joint log-likelihoods of row i (class-major jll with n rows) into
// log p(c | x) = b_c - log Σ exp(b_c') (seed 004's log-sum-exp: the largest b is factored out first),
// written to dst.
func LogPosterior(jll []float64, n, K, i int, dst []float64) {
	mx, sum := shiftedExpSum(jll, n, K, i, nil)
	ls := math.Log(sum)
	for c := range K {
		dst[c] = (jll[c*n+i] - mx) - ls
	}
}

// Posterior writes p(c | x) = exp(b_c - B) / Σ exp(b_c' - B), B = max b, for row i to dst; the
// probabilities sum to 1 within a few ulps.
func Posterior(jll []float64, n, K, i int, dst []float64) {
	_, sum := shiftedExpSum(jll, n, K, i, dst)
	for c := range K {
		dst[c] /= sum
	}
}

// shiftedExpSum returns B = max_c b_c and Σ exp(b_c - B); if e is not nil it receives exp(b_c - B).
func shiftedExpSum(jll []float64, n, K, i int, e []float64) (float64, float64) {
	mx := math.Inf(-1)
	for c := range K {
		if v := jll[c*n+i]; v > mx {
			mx = v
		}
	}
	sum := 0.0
	for c := range K {
		x := math.Exp(jll[c*n+i] - mx)
		if e != nil {
			e[c] = x
		}
		sum += x
	}
	return mx, sum
}

// Gather copies rows idx of b into dst (a batch of the same scorer from NewBatch) and sets dst.N.
func (b *Batch) Gather(dst *Batch, idx []int) {
	n := len(idx)
	dst.N = n
	for j := range b.Num {
		if b.Num[j] != nil {
			src, d := b.Num[j], dst.Num[j][:n]
			for r, i := range idx {
				d[r] = src[i]
			}
			dst.Valid[j] = nil
			if mask := b.Valid[j]; mask != nil {
				out := dst.validBuf(j, n)
				for r, i := range idx {
					if isValid(mask, i) {
						out[r>>6] |= 1 << (uint(r) & 63)
					}
				}
				dst.Valid[j] = out
			}
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

package logistic

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/sqlnb/sqlnb/internal/kernel"
)

// lrKernel evaluates the weighted log-loss of a logistic regression, its gradient and (hess) its Hessian
// at θ over rows given column-wise: seed 004's formulas, the same sums as train_logistic_step. K classes,
// class 0 the reference (z_0 = 0); dim design columns with the intercept (column 0); θ holds the K − 1
// free classes' coefficients, class-major. The result is laid out as the step template's output: loss,
// unsure, the gradient (per free class c, per column j), then per class pair c ≤ e the upper triangle of
// Σ w μ_c (δ_ce − μ_e) x xᵀ row by row (j ≤ k).
type lrKernel struct {
	K, dim int
	theta  []float64
	hess   bool
}

func (kr *lrKernel) free() int  { return kr.K - 1 }
func (kr *lrKernel) pairs() int { return kr.free() * kr.K / 2 }
func (kr *lrKernel) tri() int   { return kr.dim * (kr.dim + 1) / 2 }

// width is the length of the result vector.
func (kr *lrKernel) width() int {
	n := 2 + kr.free()*kr.dim
	if kr.hess {
		n += kr.pairs() * kr.tri()
	}
	return n
}

// lrScratch is one goroutine's working memory for chunks of at most cap rows.
type lrScratch struct {
	z, r [][]float64 // per free class: the logit, then μ; the residual w (μ − y)
	h    []float64   // one pair's Hessian weights
	zero []float64   // zeros: expShifted's shift
	t    [][]float64 // h ∘ x_j
	out  []float64
}

func (kr *lrKernel) newScratch(n int) *lrScratch {
	s := &lrScratch{z: make([][]float64, kr.free()), r: make([][]float64, kr.free()), h: make([]float64, n), zero: make([]float64, n),
		t: make([][]float64, kr.dim-1), out: make([]float64, kr.width())}
	for c := range s.z {
		s.z[c], s.r[c] = make([]float64, n), make([]float64, n)
	}
	for j := range s.t {
		s.t[j] = make([]float64, n)
	}
	return s
}

// chunk writes into s.out the sums over n rows: class index k (0..K−1), weight w (nil: 1) and design
// columns x (without the intercept).
func (kr *lrKernel) chunk(k []int32, w []float64, x [][]float64, n int, s *lrScratch) {
	free, dim := kr.free(), kr.dim
	out := s.out
	clear(out)
	for c := range free {
		z := s.z[c][:n]
		th := kr.theta[c*dim : (c+1)*dim]
		for i := range z {
			z[i] = th[0]
		}
		for j, xj := range x {
			t := th[j+1]
			if t == 0 {
				continue
			}
			xj = xj[:n]
			for i := range z {
				z[i] += t * xj[i]
			}
		}
	}
	if free == 1 && !kr.hess {
		kr.binary(k, w, x, n, s)
		return
	}
	loss, unsure := 0.0, 0.0
	for i := range n {
		zm := 0.0
		for c := range free {
			zm = math.Max(zm, s.z[c][i])
		}
		sum := math.Exp(-zm)
		for c := range free {
			e := math.Exp(s.z[c][i] - zm)
			s.r[c][i] = e
			sum += e
		}
		lse := zm + math.Log(sum)
		y := int(k[i]) - 1
		l := lse
		if y >= 0 {
			l -= s.z[y][i]
		}
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		loss += wi * l
		if l >= math.Ln2 && wi > 0 {
			unsure++
		}
		inv := 1 / sum
		for c := range free {
			mu := s.r[c][i] * inv
			s.z[c][i] = mu
			if c == y {
				mu--
			}
			s.r[c][i] = wi * mu
		}
		if w != nil {
			for c := range free {
				s.z[c][i] *= wi // w μ, for the Hessian
			}
		}
	}
	out[0], out[1] = loss, unsure
	o := 2
	for c := range free {
		r := s.r[c][:n]
		out[o] = sumOf(r)
		for j, xj := range x {
			out[o+1+j] = dot(r, xj[:n])
		}
		o += dim
	}
	if !kr.hess {
		return
	}
	// s.z holds w μ_c; the weight of pair (c, e) is w μ_c (δ_ce − μ_e), μ_e = (w μ_e) / w.
	for c := range free {
		for e := c; e < free; e++ {
			h := s.h[:n]
			wmc, wme := s.z[c][:n], s.z[e][:n]
			if c == e {
				for i := range h {
					h[i] = wmc[i] * (1 - mu(wme[i], w, i))
				}
			} else {
				for i := range h {
					h[i] = -wmc[i] * mu(wme[i], w, i)
				}
			}
			out[o] = sumOf(h)
			for j, xj := range x {
				t := s.t[j][:n]
				xj = xj[:n]
				for i := range t {
					t[i] = h[i] * xj[i]
				}
				out[o+1+j] = sumOf(t)
			}
			o += dim
			for j := range x {
				for l := j; l < len(x); l++ {
					out[o] = dot(s.t[j][:n], x[l][:n])
					o++
				}
			}
		}
	}
}

// binary is chunk for two classes without the Hessian: per row one exponential, e^(−|z|) (expShifted,
// faster than math.Exp, within 0.72 ulp), and one logarithm, log(1 + e^(−|z|)) = log(1 + e^z) − max(z, 0).
func (kr *lrKernel) binary(k []int32, w []float64, x [][]float64, n int, s *lrScratch) {
	z, r, a := s.z[0][:n], s.r[0][:n], s.h[:n]
	for i, v := range z {
		a[i] = -math.Abs(v)
	}
	kernel.ExpShifted(a, 1, a, s.zero[:n])
	k = k[:n]
	loss, unsure := 0.0, 0.0
	for i, v := range z {
		e := a[i]
		l := math.Log(1 + e)
		inv := 1 / (1 + e)
		mu := inv // σ(z) for z ≥ 0
		if v > 0 {
			l += v
		} else {
			mu = e * inv
		}
		if k[i] == 1 {
			l -= v
			mu--
		}
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		loss += wi * l
		if l >= math.Ln2 && wi > 0 {
			unsure++
		}
		r[i] = wi * mu
	}
	out := s.out
	out[0], out[1] = loss, unsure
	out[2] = sumOf(r)
	for j, xj := range x {
		out[3+j] = dot(r, xj[:n])
	}
}

// mu recovers μ from w μ (0 when the weight is 0: the row adds nothing).
func mu(wm float64, w []float64, i int) float64 {
	if w == nil {
		return wm
	}
	if w[i] == 0 {
		return 0
	}
	return wm / w[i]
}

func sumOf(a []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i]
		s1 += a[i+1]
		s2 += a[i+2]
		s3 += a[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// ddSum is a double-double accumulator (Knuth's TwoSum): chunks' partial sums added in any order give the
// same float64 total unless it falls within 2⁻¹⁰⁶ of a rounding boundary, so a pass over DuckDB's threads
// is reproducible.
type ddSum []float64 // hi, lo pairs

func (a ddSum) add(v []float64) {
	for i, x := range v {
		hi, lo := a[2*i], a[2*i+1]
		s := hi + x
		bb := s - hi
		err := (hi - (s - bb)) + (x - bb)
		a[2*i], a[2*i+1] = s, lo+err
	}
}

func (a ddSum) result(dst []float64) {
	for i := range dst {
		dst[i] = a[2*i] + a[2*i+1]
	}
}

// LogisticPass is one pass of a logistic regression fit in progress, fed by the SQL function
// nb_logistic_pass (package udf) with the rows of each chunk DuckDB scans: per chunk the kernel's sums,
// added under a lock into compensated totals.
type LogisticPass struct {
	// Columns is the number of design columns the function takes after the class index (and the weight,
	// if Weighted).
	Columns  int
	Weighted bool

	kern lrKernel
	// Per design column: a number feature's raw value, standardised here ((x − center) · (1 / scale); a row
	// with NaN is left out), or a level's indicator (center 0, scale 1).
	numeric     []bool
	center, inv []float64 // inv: 1 / scale
	// fold marks the number columns whose standardisation a pass without the Hessian folds into its
	// coefficients: w·(x − c)/s = (w/s)·x − w·c/s, the intercept taking the constant, so the kernel reads
	// the raw column and the gradient is mapped back once, in result (folded).
	fold   []bool
	folded bool

	mu   sync.Mutex
	acc  ddSum
	pool sync.Pool
	err  error

	collected []lrCollected
}

// passScratch is one goroutine's memory for a chunk: the complete rows, standardised, and the kernel's.
type passScratch struct {
	k   []int32
	w   []float64
	x   [][]float64
	in  [][]float64 // the kernel's columns of a complete chunk
	ker *lrScratch
}

// Add adds rows: class indices k (0..K−1), weights w (nil unless Weighted) and the design columns x (raw
// numbers, indicators), each of len(k) values; valid (nil: every row) marks the rows without NULLs. Rows
// with a NULL or a NaN number are left out. A class index out of range is an error, returned by the fit.
//
// A chunk whose rows are all complete goes to the kernel as DuckDB's vectors: the number columns whose
// standardisation is folded into the pass's coefficients (fold) are read as they are, the others
// standardised column by column; a chunk with a missing value is first compacted to its complete rows.
func (p *LogisticPass) Add(k []int32, w []float64, x [][]float64, valid []bool) {
	s, _ := p.pool.Get().(*passScratch)
	if s == nil {
		s = &passScratch{k: make([]int32, chunkRows), w: make([]float64, chunkRows), x: make([][]float64, p.Columns),
			in: make([][]float64, p.Columns), ker: p.kern.newScratch(chunkRows)}
		for j := range s.x {
			s.x[j] = make([]float64, chunkRows)
		}
	}
	defer p.pool.Put(s)
	for a := 0; a < len(k); a += chunkRows {
		e := min(len(k), a+chunkRows)
		kc := k[a:e]
		complete := valid == nil
		if complete && !p.classesInRange(kc) {
			return
		}
		for j := 0; complete && j < len(x); j++ {
			if p.numeric[j] && hasNaN(x[j][a:e]) {
				complete = false
			}
		}
		var n int
		var wc []float64
		if complete {
			n = e - a
			if w != nil {
				wc = w[a:e]
			}
			for j, xj := range x {
				xj = xj[a:e]
				if !p.numeric[j] || (p.folded && p.fold[j]) {
					s.in[j] = xj
					continue
				}
				c, inv, dst := p.center[j], p.inv[j], s.x[j][:n]
				for i, v := range xj {
					dst[i] = (v - c) * inv
				}
				s.in[j] = dst
			}
			p.kern.chunk(kc, wc, s.in, n, s.ker)
		} else {
			for i := a; i < e; i++ {
				if valid != nil && !valid[i] {
					continue
				}
				if !p.classesInRange(k[i : i+1]) {
					return
				}
				ok := true
				for j, xj := range x {
					v := xj[i]
					if p.numeric[j] {
						if v != v {
							ok = false
							break
						}
						if !p.folded || !p.fold[j] {
							v = (v - p.center[j]) * p.inv[j]
						}
					}
					s.x[j][n] = v
				}
				if !ok {
					continue
				}
				s.k[n] = k[i]
				if w != nil {
					s.w[n] = w[i]
				}
				n++
			}
			if n == 0 {
				continue
			}
			if w != nil {
				wc = s.w[:n]
			}
			p.kern.chunk(s.k[:n], wc, s.x, n, s.ker)
		}
		p.mu.Lock()
		p.acc.add(s.ker.out)
		p.mu.Unlock()
	}
}

// classesInRange reports whether every class index is in 0..K−1, and records the error if not.
func (p *LogisticPass) classesInRange(k []int32) bool {
	for _, c := range k {
		if c < 0 || int(c) >= p.kern.K {
			p.mu.Lock()
			p.err = fmt.Errorf("nb_logistic_pass: class index %d out of range", c)
			p.mu.Unlock()
			return false
		}
	}
	return true
}

func hasNaN(a []float64) bool {
	nan := false
	for _, v := range a {
		nan = nan || v != v
	}
	return nan
}

// foldLimit bounds the number columns whose standardisation a pass folds into its coefficients: those with
// |center| ≤ foldLimit · scale, so that the gradient's Σ r x − center Σ r, recovered from the raw column,
// loses at most a few bits to cancellation (a column far from 0 for its spread, such as values near 10⁹
// ± 1, is standardised row by row instead).
const foldLimit = 8

// chunkRows bounds the rows of one kernel call (DuckDB's vector size).
const chunkRows = 2048

// reset starts a pass at θ.
func (p *LogisticPass) reset(theta []float64, hess bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kern.theta, p.kern.hess, p.folded = theta, hess, false
	if !hess && slices.Contains(p.fold, true) {
		dim := p.kern.dim
		raw := slices.Clone(theta)
		for c := range p.kern.free() {
			th := raw[c*dim : (c+1)*dim]
			for j, f := range p.fold {
				if f {
					th[j+1] *= p.inv[j]
					th[0] -= th[j+1] * p.center[j]
				}
			}
		}
		p.kern.theta, p.folded = raw, true
	}
	p.acc = make(ddSum, 2*p.kern.width())
	p.pool = sync.Pool{}
	p.err = nil
}

// result returns the pass's sums.
func (p *LogisticPass) result() ([]float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]float64, p.kern.width())
	p.acc.result(out)
	if p.folded {
		// Σ r (x − c)/s = (Σ r x − c Σ r)/s per free class.
		for c := range p.kern.free() {
			o := 2 + c*p.kern.dim
			for j, f := range p.fold {
				if f {
					out[o+1+j] = (out[o+1+j] - p.center[j]*out[o]) * p.inv[j]
				}
			}
		}
	}
	return out, p.err
}

// Collect keeps rows for the fit's sample (train_logistic_sample): h is each row's hash, which orders them.
func (p *LogisticPass) Collect(h []uint64, k []int32, w []float64, x [][]float64) {
	c := lrCollected{h: slices.Clone(h), k: slices.Clone(k), w: slices.Clone(w), x: make([][]float64, len(x))}
	for j := range x {
		c.x[j] = slices.Clone(x[j])
	}
	p.mu.Lock()
	p.collected = append(p.collected, c)
	p.mu.Unlock()
}

type lrCollected struct {
	h []uint64
	k []int32
	w []float64
	x [][]float64
}

// takeSample returns the collected rows, ordered by hash, then class, weight and values: the same order
// whatever the threads that scanned them.
func (p *LogisticPass) takeSample() *lrSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	type ref struct {
		h    uint64
		c, i int32
	}
	var refs []ref
	for c, ch := range p.collected {
		for i, h := range ch.h {
			refs = append(refs, ref{h, int32(c), int32(i)})
		}
	}
	slices.SortFunc(refs, func(a, b ref) int {
		if a.h != b.h {
			return cmp.Compare(a.h, b.h)
		}
		ca, cb := &p.collected[a.c], &p.collected[b.c]
		if v := cmp.Compare(ca.k[a.i], cb.k[b.i]); v != 0 {
			return v
		}
		if ca.w != nil {
			if v := cmp.Compare(ca.w[a.i], cb.w[b.i]); v != 0 {
				return v
			}
		}
		for j := range ca.x {
			if v := cmp.Compare(ca.x[j][a.i], cb.x[j][b.i]); v != 0 {
				return v
			}
		}
		return 0
	})
	s := &lrSample{k: make([]int32, len(refs)), x: make([][]float64, p.Columns)}
	if p.Weighted {
		s.w = make([]float64, len(refs))
	}
	for j := range s.x {
		s.x[j] = make([]float64, len(refs))
	}
	for r, ref := range refs {
		ch := &p.collected[ref.c]
		s.k[r] = ch.k[ref.i]
		w := 1.0
		if s.w != nil {
			w = ch.w[ref.i]
			s.w[r] = w
		}
		s.weight += w
		for j := range s.x {
			s.x[j][r] = ch.x[j][ref.i]
		}
	}
	p.collected = nil
	return s
}

var logisticPasses sync.Map // token → *LogisticPass

// LookupLogisticPass returns the pass a fit in progress registered under token (the first argument of
// nb_logistic_pass).
func LookupLogisticPass(token string) (*LogisticPass, error) {
	if p, ok := logisticPasses.Load(token); ok {
		return p.(*LogisticPass), nil
	}
	return nil, fmt.Errorf("no logistic regression fit in progress has token %q (nb_logistic_pass is sqlnb's own, called by its fits)", token)
}

// newLogisticPass registers a pass for a fit with dim design columns (with the intercept); release
// removes it. The rows of its sample are kept as they come; setColumns sets the standardisation of the
// passes.
func newLogisticPass(K, dim int, weighted bool) (p *LogisticPass, token string, release func()) {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	token = "lr" + hex.EncodeToString(b)
	p = &LogisticPass{Columns: dim - 1, Weighted: weighted, kern: lrKernel{K: K, dim: dim}}
	logisticPasses.Store(token, p)
	return p, token, func() { logisticPasses.Delete(token) }
}

// setColumns sets the design columns' standardisation (number columns) for the passes.
func (p *LogisticPass) setColumns(cols []designCol) {
	p.numeric, p.center, p.inv, p.fold = nil, nil, nil, nil
	for _, c := range cols {
		p.numeric = append(p.numeric, c.numeric)
		p.center = append(p.center, c.mean)
		p.inv = append(p.inv, 1/c.scale)
		p.fold = append(p.fold, c.numeric && math.Abs(c.mean) <= foldLimit*c.scale)
	}
}

// lrSample is a fixed set of training rows held column-wise in memory: the Newton fit takes its Hessian
// from them (all rows when the source is small).
type lrSample struct {
	k      []int32
	w      []float64 // nil: unweighted
	x      [][]float64
	weight float64 // Σ w
}

// eval returns the kernel's sums over the sample at θ, chunk by chunk on GOMAXPROCS goroutines, added in a
// fixed order.
func (s *lrSample) eval(K, dim int, theta []float64, hess bool) []float64 {
	kr := lrKernel{K: K, dim: dim, theta: theta, hess: hess}
	n := len(s.k)
	chunks := (n + chunkRows - 1) / chunkRows
	parts := make([][]float64, chunks)
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for i := range chunks {
		next <- i
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), max(chunks, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := kr.newScratch(chunkRows)
			for i := range next {
				a, e := i*chunkRows, min(n, (i+1)*chunkRows)
				var w []float64
				if s.w != nil {
					w = s.w[a:e]
				}
				x := make([][]float64, len(s.x))
				for j := range x {
					x[j] = s.x[j][a:e]
				}
				kr.chunk(s.k[a:e], w, x, e-a, sc)
				parts[i] = append([]float64(nil), sc.out...)
			}
		}()
	}
	wg.Wait()
	acc := make(ddSum, 2*kr.width())
	for _, p := range parts {
		acc.add(p)
	}
	out := make([]float64, kr.width())
	acc.result(out)
	return out
}

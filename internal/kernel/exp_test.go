package kernel

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigExp is e^x to ~200 bits: the Taylor series of e^(x/2^20), squared 20 times.
func bigExp(x float64) *big.Float {
	const prec, halvings = 260, 20
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -halvings)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := 1; k < 40; k++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		sum.Add(sum, term)
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	return sum
}

// ulps is |got − want| in units of the last place of want.
func ulps(got float64, want *big.Float) float64 {
	w, _ := want.Float64()
	ulp := math.Nextafter(w, math.Inf(1)) - w
	d := new(big.Float).SetPrec(260).Sub(new(big.Float).SetFloat64(got), want)
	d.Quo(d, new(big.Float).SetFloat64(ulp)) // in big.Float: the difference of subnormals is below the smallest float64
	f, _ := d.Float64()
	return math.Abs(f)
}

// TestExpNonPositive: within 0.72 ulp of a 200-bit reference where the result is normal (0.68 measured on 300,000, 0.71 at −46.09384106140447: the
// last addition's 0.5, the rounding of e + t, of r² and in P; expRebuild), within 1 ulp of the subnormal
// where it is not (0.77 the most a review found: the product with 2⁻⁶⁴ rounds a second time); math.Exp on amd64, its assembly
// version, is off by up to ~1.5 ulp in both. Within 2 ulps of math.Exp on a million arguments, and math.Exp's
// value outside its range (0, NaN).
func TestExpNonPositive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	// The polynomial path itself (expNonPositive takes math.Exp instead on a CPU without FMA: hasFMA).
	poly := func(x float64) float64 { return expRebuild(expReduce(x)) }
	var worst, worstStd, worstSub, worstSubStd float64
	for i := range 20000 {
		var x float64
		switch i % 4 {
		case 0:
			x = -r.Float64() * 708
		case 1:
			x = -r.Float64() * 2
		case 2:
			x = -r.Float64() * 1e-3
		default:
			x = -708.4 - r.Float64()*36.8
		}
		want := bigExp(x)
		got, std := ulps(poly(x), want), ulps(math.Exp(x), want)
		if x > -708.39 {
			worst, worstStd = max(worst, got), max(worstStd, std)
		} else {
			worstSub, worstSubStd = max(worstSub, got), max(worstSubStd, std)
		}
	}
	// A bad case found by a review (the error before the last rounding is up to 0.21 ulp there).
	if x := -46.09384106140447; ulps(poly(x), bigExp(x)) > 0.72 {
		t.Errorf("e^%v is %.3f ulp from the exact value", x, ulps(poly(x), bigExp(x)))
	}
	if worst > 0.72 || worstSub > 1 {
		t.Errorf("expNonPositive is %.3f ulp from the exact value, %.3f where it is subnormal (math.Exp: %.3f, %.3f)", worst, worstSub, worstStd, worstSubStd)
	}
	t.Logf("largest error: %.3f ulp, %.3f where subnormal (math.Exp %.3f, %.3f)", worst, worstSub, worstStd, worstSubStd)
	for range 1_000_000 {
		x := -r.ExpFloat64() * 30
		got, std := expNonPositive(x), math.Exp(x)
		if ulp := math.Nextafter(std, 1) - std; math.Abs(got-std) > 2*ulp {
			t.Fatalf("e^%v: %v, math.Exp %v", x, got, std)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300, -708, -708.0001, -745, -746, math.Inf(-1), math.NaN(), 1, 709.7} {
		got, std := expNonPositive(x), math.Exp(x)
		if got != std && !(math.IsNaN(got) && math.IsNaN(std)) && ulps(got, bigExp(x)) > 1 {
			t.Errorf("e^%v: %v, math.Exp %v", x, got, std)
		}
	}
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i%200) * 0.37
	}
	b.Run("math.Exp", func(b *testing.B) {
		s := 0.0
		for b.Loop() {
			for _, x := range xs {
				s += math.Exp(x)
			}
		}
		_ = s
	})
	b.Run("expNonPositive", func(b *testing.B) {
		s := 0.0
		for b.Loop() {
			for _, x := range xs {
				s += expNonPositive(x)
			}
		}
		_ = s
	})
}

// TestPosteriorsMatchRows: the chunk-wide Posteriors, LogPosteriors and LogEvidences give Posterior's,
// LogPosterior's and LogEvidence's values row by row, bit for bit (classes far below the best, ties, ±∞ and NaN scores included; a NaN
// result is NaN in both, whatever its payload).
func TestPosteriorsMatchRows(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, K := range []int{1, 2, 3, 10} {
		n := 300
		jll := make([]float64, n*K)
		for i := range jll {
			jll[i] = -r.ExpFloat64() * []float64{1, 30, 800}[i%3]
		}
		jll[5] = math.Inf(-1)
		// Ties, every class −∞, a NaN, and differences past the fast exponential's range (−708) and past
		// underflow (−745.13), in row 7..12.
		for c := range K {
			jll[c*n+7] = -3
			jll[c*n+8] = math.Inf(-1)
			jll[c*n+10] = -1 - 720*float64(c)
			jll[c*n+11] = -1 - 740*float64(c%2)
			jll[c*n+12] = -1 - 800*float64(c%2)
		}
		jll[(K-1)*n+9] = math.NaN()
		// +∞ scores: one class's (row 13, 101), every class's (row 14): NaN, as Posterior's e^(+∞ − +∞) (for two
		// classes posteriorsTwo once gave 1 and 0).
		jll[13], jll[101] = math.Inf(1), math.Inf(1)
		for c := range K {
			jll[c*n+14] = math.Inf(1)
		}
		post, logp := make([]float64, n*K), make([]float64, n*K)
		mx := make([]float64, n)
		Posteriors(jll, n, K, post, mx)
		LogPosteriors(jll, n, K, logp, mx)
		evidence := make([]float64, n)
		for i := range mx {
			mx[i] = 12345 // scratch holds whatever it held: LogEvidences must not read its rowMax before writing it
		}
		LogEvidences(jll, n, K, evidence, make([]float64, n*K), mx)
		for i := range n {
			if got, want := evidence[i], LogEvidence(jll, n, K, i); !sameBits(got, want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("K=%d row %d: LogEvidences %v, LogEvidence %v", K, i, got, want)
			}
		}
		row := make([]float64, K)
		for i := range n {
			Posterior(jll, n, K, i, row)
			for c := range K {
				if got := post[i*K+c]; math.Float64bits(row[c]) != math.Float64bits(got) && !(math.IsNaN(got) && math.IsNaN(row[c])) {
					t.Fatalf("K=%d row %d class %d: Posteriors %v, Posterior %v", K, i, c, post[i*K+c], row[c])
				}
			}
			LogPosterior(jll, n, K, i, row)
			for c := range K {
				if got := logp[i*K+c]; math.Float64bits(row[c]) != math.Float64bits(got) && !(math.IsNaN(got) && math.IsNaN(row[c])) {
					t.Fatalf("K=%d row %d class %d: LogPosteriors %v, LogPosterior %v", K, i, c, logp[i*K+c], row[c])
				}
			}
		}
	}
}

// vectorKernels lists the kernel settings this machine can run: "go" (the Go loops) and "avx2" where the
// CPU has AVX2 and FMA and the build has the kernels (amd64 without -tags purego). The tests below compare
// each with the Go reference; with only "go" they check the dispatch (groups, tails, strides) alone.
func vectorKernels() []string {
	if UseAVX2 {
		return []string{"go", "avx2"}
	}
	return []string{"go"}
}

// useKernels sets UseAVX2 for a vectorKernels setting and returns the function that restores it.
func useKernels(name string) func() {
	old := UseAVX2
	UseAVX2 = name != "go"
	return func() { UseAVX2 = old }
}

// setAVX2 sets the kernels (vectorKernels) for the rest of the test.
func setAVX2(t *testing.T, name string) {
	t.Cleanup(useKernels(name))
}

// expEdges are the arguments at the ends of expShifted's range and beyond: where results turn subnormal
// (below −708.4) and 0 (below −745.13), expClamp and their neighbours, NaN, infinities, tiny values of either
// sign, and where k changes (odd multiples of ln2/2, and k = −1021.5).
func expEdges() []float64 {
	inf := math.Inf(1)
	return []float64{0, math.Copysign(0, -1), -708, math.Nextafter(-708, 0), math.Nextafter(-708, -inf), expClamp, math.Nextafter(expClamp, 0), math.Nextafter(expClamp, -inf),
		-708.39, -708.4, -720, -740, -745, -745.13, expUnderflow, math.Nextafter(expUnderflow, 0),
		math.Nextafter(expUnderflow, -inf), -745.2, -746, -1e4, -math.MaxFloat64, -inf, inf, math.NaN(),
		-5e-324, 5e-324, -1e-300, 1e-300, 1, 709.7, -1e-17, -0.5 * math.Ln2, -math.Ln2, -1021.5 * math.Ln2, math.Nextafter(-1021.5*math.Ln2, 0), -707.9, -0.5 * math.Ln2 * 1.0000001}
}

// expUnderflow is math.Exp's bound: e^x < 2⁻¹⁰⁷⁵ below it, which rounds to 0.
const expUnderflow = -7.45133219101941108420e+02

// sameBits reports whether a and b are the same float64, bit for bit.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestExpShiftedKernels: expShifted with each kernel gives expShiftedGo's bits (the scalar reference), on 4M
// random differences in [−745.2, 0] (most with normal results, some between −708 and −745.13, subnormal ones)
// and on expEdges at random places among them (NaN and positive ones make the AVX2 kernel leave their group to
// the Go loop); and
// expShiftedGo gives expNonPositive's bits.
func TestExpShiftedKernels(t *testing.T) {
	const n = 1 << 22
	r := rand.New(rand.NewPCG(5, 6))
	src, shift := make([]float64, n), make([]float64, n)
	edges := expEdges()
	for i := range src {
		var x float64
		switch i % 5 {
		case 0:
			x = -r.Float64() * 745.2
		case 1:
			x = -r.Float64() * 2
		case 2:
			x = -r.ExpFloat64() * 30
		case 3:
			x = -r.Float64() * 1e-6
		default:
			x = -708 - r.Float64()*40
			if r.IntN(4) != 0 {
				x = -r.Float64() * 708
			}
		}
		if r.IntN(1000) == 0 {
			x = edges[r.IntN(len(edges))]
		}
		// A shift that keeps src − shift = x exactly (a power of two near src's size, or 0).
		s := 0.0
		if i%3 == 0 {
			s = float64(int(r.IntN(64)))
		}
		src[i], shift[i] = x+s, s
		if src[i]-shift[i] != x && !math.IsNaN(x) && !math.IsInf(x, 0) {
			src[i], shift[i] = x, 0
		}
	}
	want := make([]float64, n)
	expShiftedGo(want, 1, src, shift)
	for i, x := range src {
		if e := expNonPositive(x - shift[i]); !sameBits(e, want[i]) {
			t.Fatalf("e^%v: expShiftedGo %v, expNonPositive %v", x-shift[i], want[i], e)
		}
	}
	for _, avx := range vectorKernels() {
		setAVX2(t, avx)
		got := make([]float64, n)
		ExpShifted(got, 1, src, shift)
		for i := range got {
			if !sameBits(got[i], want[i]) {
				t.Fatalf("kernels %s: e^%v (%v − %v): %v (%#x), Go %v (%#x)", avx, src[i]-shift[i], src[i], shift[i],
					got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
	}
	// Every edge value in every lane of a group of fast values, and groups of edge values alone.
	for _, avx := range vectorKernels() {
		setAVX2(t, avx)
		for _, e := range edges {
			for lane := range 4 {
				x := []float64{-1.5, -0.25, -700, -3e-5}
				x[lane] = e
				zero := make([]float64, 4)
				got, want := make([]float64, 4), make([]float64, 4)
				ExpShifted(got, 1, x, zero)
				expShiftedGo(want, 1, x, zero)
				for i := range got {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("kernels %s: e^%v in %v: %v, Go %v", avx, x[i], x, got[i], want[i])
					}
				}
			}
		}
		x := append(expEdges(), expEdges()...)
		got, want := make([]float64, len(x)), make([]float64, len(x))
		ExpShifted(got, 1, x, make([]float64, len(x)))
		expShiftedGo(want, 1, x, make([]float64, len(x)))
		for i := range got {
			if !sameBits(got[i], want[i]) {
				t.Fatalf("kernels %s: e^%v: %v, Go %v", avx, x[i], got[i], want[i])
			}
		}
	}
}

// TestExpShiftedStrides: expShifted writes e^(src[i] − shift[i]) to dst[i·stride] and nothing else, for every
// length 0..37 (tails of 0 to 3 after the groups of four) and stride 1..11, in place too (dst = src, as the
// logistic loss calls it); the values are expShiftedGo's bits.
func TestExpShiftedStrides(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	edges := expEdges()
	for _, avx := range vectorKernels() {
		setAVX2(t, avx)
		for trial := range 2000 {
			n, stride := r.IntN(38), 1+r.IntN(11)
			src, shift := make([]float64, n), make([]float64, n)
			for i := range src {
				src[i], shift[i] = -r.Float64()*50, r.Float64()*700
				if trial%4 == 0 && r.IntN(8) == 0 {
					src[i], shift[i] = edges[r.IntN(len(edges))], 0
				}
			}
			size := n*stride + 3
			got, want := make([]float64, size), make([]float64, size)
			for i := range got {
				got[i], want[i] = float64(-i), float64(-i) // what must stay
			}
			ExpShifted(got[1:], stride, src, shift)
			expShiftedGo(want[1:], stride, src, shift)
			for i := range got {
				if !sameBits(got[i], want[i]) {
					t.Fatalf("kernels %s n=%d stride=%d: dst[%d] = %v, Go %v", avx, n, stride, i-1, got[i], want[i])
				}
			}
			inPlace := append([]float64(nil), src...)
			ExpShifted(inPlace, 1, inPlace, shift)
			for i, v := range inPlace {
				if !sameBits(v, want[1+i*stride]) {
					t.Fatalf("kernels %s n=%d in place: dst[%d] = %v, Go %v", avx, n, i, v, want[1+i*stride])
				}
			}
		}
	}
}

// TestPosteriorsKernels: Posteriors (posteriorsTwo for two classes, posteriorsAVX2 and expSumsBlock for more)
// gives the same bits with each kernel as with the Go loops, for every number of rows 0..37 and 300, scores
// with differences giving normal, subnormal and zero exponentials, ties, ±∞ and NaN; dst past the rows is
// left alone.
func TestPosteriorsKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	edges := expEdges()
	run := func(avx string, jll []float64, n, K int) []float64 {
		defer useKernels(avx)()
		dst, mx := make([]float64, n*K+5), make([]float64, n)
		for i := range dst {
			dst[i] = 42
		}
		Posteriors(jll, n, K, dst, mx)
		return dst
	}
	for _, K := range []int{2, 3, 5, 7, 8, 9, 10, 15, 16, 17, 64, 65} {
		for trial := range 1500 {
			n := r.IntN(38)
			if trial%100 == 0 {
				n = 300
			}
			jll := make([]float64, n*K)
			for i := range jll {
				jll[i] = -r.ExpFloat64() * []float64{1, 30, 800}[r.IntN(3)]
				if trial%3 == 0 && r.IntN(10) == 0 {
					jll[i] = edges[r.IntN(len(edges))]
				}
			}
			want := run("go", jll, n, K)
			for _, avx := range vectorKernels() {
				got := run(avx, jll, n, K)
				for i := range got {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("kernels %s K=%d n=%d: dst[%d] = %v, Go %v", avx, K, n, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkPosteriors measures Posteriors alone on one 2048-row vector of scores a few units apart (no NaN),
// with the Go loops and with the AVX2 kernels, side by side.
func BenchmarkPosteriors(b *testing.B) {
	const n = 2048
	r := rand.New(rand.NewPCG(11, 12))
	for _, K := range []int{2, 3, 10} {
		jll := make([]float64, n*K)
		for i := range jll {
			jll[i] = -20 * r.Float64()
		}
		dst, mx := make([]float64, n*K), make([]float64, n)
		for _, avx := range vectorKernels() {
			b.Run(fmt.Sprintf("k%d/%s", K, avx), func(b *testing.B) {
				defer useKernels(avx)()
				for b.Loop() {
					Posteriors(jll, n, K, dst, mx)
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
		}
	}
}

// TestKernelsTakeFastRange: the AVX2 kernels do the groups they can rather than leave them to the Go code
// (which would pass the tests above as well): on differences ≤ 0, subnormal and zero results included, each
// returns every whole group of four (posteriorsAVX2: of eight).
func TestKernelsTakeFastRange(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, avx := range vectorKernels() {
		if avx == "go" {
			continue
		}
		for _, n := range []int{4, 5, 37, 256} {
			K := 3
			jll, dst, sum := make([]float64, n*K), make([]float64, n*K), make([]float64, n)
			for i := range jll {
				jll[i] = -r.Float64() * 700
				if i%7 == 0 {
					jll[i] = -2000 - r.Float64()*1e4 // e^x is 0, differences with the others too
				}
				if i%11 == 0 {
					jll[i] = -708.5 - r.Float64()*36 // a subnormal e^x
				}
			}
			want := n &^ 3
			if got := expShiftedAVX2(&dst[0], K, &jll[0], &sum[0], n); got != want {
				t.Errorf("expShiftedAVX2 did %d of %d values", got, n)
			}
			if got := posteriorsTwoAVX2(&jll[0], &jll[n], &dst[0], n); got != want {
				t.Errorf("posteriorsTwoAVX2 did %d of %d rows", got, n)
			}
			if got := expSumsAVX2(&jll[0], n, K, n, &dst[0], &sum[0]); got != want {
				t.Errorf("expSumsAVX2 did %d of %d rows", got, n)
			}
			var scratch [posteriorsWide * 8]float64
			if got := posteriorsAVX2(&jll[0], n, K, n, &dst[0], &scratch[0], nil, nil); got != n&^7 {
				t.Errorf("posteriorsAVX2 did %d of %d rows", got, n)
			}
			if got := posteriorsAVX2(&jll[0], n, K, n, nil, &scratch[0], &sum[0], &dst[0]); got != n&^7 {
				t.Errorf("posteriorsAVX2 without dst (LogEvidences) did %d of %d rows", got, n)
			}
		}
	}
}

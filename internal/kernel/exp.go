package kernel

import (
	"math"
	"math/big"
)

// expNonPositive returns e^x for x ≤ 0, as math.Exp does but faster (see expShifted).
func expNonPositive(x float64) float64 {
	if x <= 0 && HasFMA {
		return expRebuild(expReduce(x))
	}
	return expSlow(x)
}

// expShifted sets dst[i*stride] = e^(src[i] − shift[i]) for every i (dst may be src with stride 1): the
// exponentials of the posteriors (expShiftedBlock) and of the logistic loss (logistic_pass.go).
// The differences are ≤ 0 there. x = k·ln2 + r with |r| ≤ ln2/2, e^x = 2^k · e^r, e^r by a polynomial of
// degree 11 (minimax, near Taylor's) evaluated with fused multiply-adds (expReduce, expRebuild): no table, so that the
// vector kernels need no gathers, and Estrin's scheme, so that they do not wait on a long chain of
// dependent operations. The error is below 0.72 ulp (math.Exp on amd64: ~1.4 ulp); TestExpNonPositive checks
// it against a 200-bit reference. Every x ≤ 0 takes this path: subnormal results (x below −708.4) too, and
// below expClamp the result is 0, as math.Exp's; above 0 and NaN go to math.Exp, and so does every x on a CPU
// without FMA (hasFMA: math.FMA would be software there, ~50 times slower).
//
// On amd64 CPUs with AVX2 and FMA (useAVX2), expShiftedAVX2 (exp_amd64.s) computes four at a time with the
// same IEEE operations per lane, so the same bits; a group of four with a value above 0 or NaN, and the last
// len(src) mod 4, go through expShiftedGo.
func ExpShifted(dst []float64, stride int, src, shift []float64) {
	n := len(src)
	shift = shift[:n]
	if n == 0 {
		return
	}
	_ = dst[(n-1)*stride] // the kernel writes up to here
	byFours(n, func(i int) int { return expShiftedAVX2(&dst[i*stride], stride, &src[i], &shift[i], n-i) },
		func(i, j int) { expShiftedGo(dst[i*stride:], stride, src[i:j], shift[i:j]) })
}

// expShiftedGo is expShifted in Go, one value at a time: the reference the AVX2 kernel reproduces.
func expShiftedGo(dst []float64, stride int, src, shift []float64) {
	shift = shift[:len(src)]
	for i, v := range src {
		x := v - shift[i]
		if x <= 0 && HasFMA {
			x = expRebuild(expReduce(x))
		} else {
			x = expSlow(x)
		}
		dst[i*stride] = x
	}
}

// expReduce splits x (raised to expClamp if below it) into k·ln2 + r, |r| ≤ ln2/2 (a little more where x·(1/ln2) rounds up past a half):
// z = x·(1/ln2) rounded to an integer k by adding 1.5·2⁵², so that k sits in the low bits of z's mantissa
// (returned as z's bits; one FMA, so one rounding); with ln2 = hi + lo, r = rh − kl, rh = x − k·hi by one fused multiply-add (exact:
// x and k·hi are that close, and hi's last bit is 2⁻⁵³) and kl = k·lo. Inlined by the loops
// (expRebuild(expReduce(x)) is the fast path, as one function it would not be inlined).
//
// The products are converted to float64 on their own: without it Go may fuse one with a sum into an FMA (it
// does with GOAMD64=v3), and the AVX2 kernel (exp_amd64.s), which rounds it on its own, would no longer give
// the same bits. math.FMA is exact on every platform (an instruction where there is one, software elsewhere),
// so the fused steps give the same bits everywhere.
func expReduce(x float64) (rh, kl float64, k uint64) {
	x = max(x, expClamp)
	z := math.FMA(x, expInvLn2, expShift)
	kd := z - expShift
	return math.FMA(-kd, expLn2Hi, x), float64(kd * expLn2Lo), math.Float64bits(z)
}

// expRebuild returns e^x = 2^k · e^r for expReduce's rh, kl and k, r = rh − kl: e^r = 1 + r + r²·P(r), P the
// polynomial of degree 9 closest to (e^r − 1 − r)/r² for |r| ≤ 0.3466 (expC4 … expC11: within 0.07 ulp of e^r)
// by Estrin's scheme: five pairs c + c'·r, joined by r² and then r⁴ (Horner's form in r⁴), one FMA
// a step, so that the longest chain of dependent operations is about a third of Horner's (the vector kernels
// wait on that chain). The sum is taken as h + (r²·P + (e − kl)), h + e = 1 + rh exactly (Fast2Sum), so that the
// last addition is the main rounding (0.5 ulp; the others add up to 0.23): the error measured is below 0.72 ulp
// (TestExpNonPositive). Times
// 2^k as (e^r · 2^(k+64)) · 2⁻⁶⁴: 2^(k+64) is a normal number for x ≥ expClamp (k ≥ −1076), its bits k + 64
// + 1023 shifted into the exponent field, the first product is exact and normal (e^r ≥ 0.7), and the second
// is exact where the result is normal and rounds it once where it is subnormal (x below −708.4; its error
// then is below 1 ulp of the subnormal: 0.5 for the second rounding, and the first). Products, not sums of bits,
// so that a NaN x gives NaN (the vector kernels rely on it).
func expRebuild(rh, kl float64, k uint64) float64 {
	r := rh - kl
	r2 := float64(r * r)
	r4 := float64(r2 * r2)
	q0 := math.FMA(expC3, r, expC2)
	q1 := math.FMA(expC5, r, expC4)
	q2 := math.FMA(expC7, r, expC6)
	q3 := math.FMA(expC9, r, expC8)
	q4 := math.FMA(expC11, r, expC10)
	s0 := math.FMA(q1, r2, q0)
	s1 := math.FMA(q3, r2, q2)
	p := math.FMA(math.FMA(q4, r4, s1), r4, s0)
	h := 1 + rh
	e := (1 - h) + rh
	p = h + math.FMA(r2, p, e-kl)
	return p * math.Float64frombits(k<<52+expScale64) * 0x1p-64
}

// expSlow is e^x above 0 and of NaN: math.Exp (out of line, so that the loops, which rarely call it, stay
// small).
//
//go:noinline
func expSlow(x float64) float64 {
	return math.Exp(x)
}

const (
	expShift  = 0x1.8p52
	expInvLn2 = 1 / math.Ln2
	// expClamp is where expReduce raises smaller arguments to: e^−746 rounds to 0 as well, and k stays in
	// the range expRebuild's sum needs.
	expClamp = -746
	// expScale64 is 64 + 1023 in the exponent field: expRebuild's 2^(k+64) is k<<52 + expScale64.
	expScale64 = (64 + 1023) << 52
	// expC<i> is the coefficient of r^i in e^r = 1 + r + r²·P(r): 1/2 and 1/6 rounded, as in the Taylor
	// series, and c4 … c11 those of the polynomial P of degree 9 with the smallest max |r²·(P(r) − (e^r − 1 −
	// r)/r²)| over |r| ≤ 0.3466 given c2 and c3 (a Remez exchange at 60 digits,
	// testdata/fixtures/exp_minimax.py), rounded: 0.07 ulp of e^r at most, where the Taylor polynomial of
	// degree 13 it replaces (two FMAs more) came within 0.05.
	expC2, expC3                 = 1.0 / 2, 1.0 / 6
	expC4, expC5, expC6, expC7   = 0x1.55555555531d4p-5, 0x1.111111110fb95p-7, 0x1.6c16c17cd7227p-10, 0x1.a01a01b087534p-13
	expC8, expC9, expC10, expC11 = 0x1.a019aae785629p-16, 0x1.71ddf36c60925p-19, 0x1.289fd43e2824cp-22, 0x1.af6a7c9f785a0p-26
)

// ln2 as hi + lo: hi rounded to a float64, lo the rest rounded.
var expLn2Hi, expLn2Lo = splitLn2()

func splitLn2() (hi, lo float64) {
	ln2 := bigLn2()
	hi, _ = ln2.Float64()
	lo, _ = new(big.Float).SetPrec(220).Sub(ln2, new(big.Float).SetFloat64(hi)).Float64()
	return hi, lo
}

// bigLn2 is ln 2 to 200 bits: Σ 1/(k·2^k).
func bigLn2() *big.Float {
	sum := new(big.Float).SetPrec(220)
	term := new(big.Float).SetPrec(220)
	for k := 1; k < 230; k++ {
		term.SetInt64(1)
		term.SetMantExp(term, -k)
		term.Quo(term, new(big.Float).SetPrec(220).SetInt64(int64(k)))
		sum.Add(sum, term)
	}
	return sum
}

package sqlnb

import (
	"math"
	"math/big"
)

// expNonPositive returns e^x for x ≤ 0, as math.Exp does but ~2× as fast (see expShifted).
func expNonPositive(x float64) float64 {
	if x <= 0 && x >= expFastMin {
		return expRebuild(expReduce(x))
	}
	return expSlow(x)
}

// expShifted sets dst[i*stride] = e^(src[i] − shift[i]) for every i (dst may be src with stride 1): the
// exponentials of the posteriors (expShiftedBlock) and of the logistic loss (logistic_pass.go).
// The differences are ≤ 0 there. It is the table-driven method of Tang (ACM TOMS 15(2), 1989), as in glibc
// and ARM's optimized-routines: x = k·ln2/128 + r with |r| ≤ ln2/256, e^x = 2^(k/128) · e^r, 2^(j/128) from
// a 128-entry table kept with its rounding error (a tail), e^r − 1 by its Taylor series to r⁵ (the next
// term is below 2⁻⁶⁰ of the result). The error is below 0.52 ulp (math.Exp on amd64: ~1.4 ulp);
// TestExpNonPositive checks it against a 200-bit reference. Differences in [−708, 0] take this path (math.Exp
// costs ~2× as much, and a call per value ~25% more); below −745.13 (e^x rounds to 0) the result is 0;
// between, above 0, and NaN go to math.Exp.
//
// On amd64 CPUs with AVX2 (useAVX2), expShiftedAVX2 (exp_amd64.s) computes four at a time with the same
// IEEE operations per lane, so the same bits; a group of four with a value outside the fast range (other
// than below −745.13, which it sets to 0 as expSlow does), and the last len(src) mod 4, go through
// expShiftedGo.
func expShifted(dst []float64, stride int, src, shift []float64) {
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
		if x <= 0 && x >= expFastMin {
			x = expRebuild(expReduce(x))
		} else {
			x = expSlow(x)
		}
		dst[i*stride] = x
	}
}

// expReduce splits x into k·ln2/128 + r, |r| ≤ ln2/256: z = x·128/ln2 rounded to an integer k by adding
// 1.5·2⁵², so that k sits in the low bits of z's mantissa (returned as z's bits); r = x − k·ln2/128 with
// ln2/128 as hi + lo (k·hi is exact, and so is x − k·hi: the two are within a factor of 2). Inlined by the
// loops (expRebuild(expReduce(x)) is the fast path, as one function it would not be inlined).
//
// The float64 conversions keep every product rounded on its own: without them Go may fuse a product and a
// sum into one FMA instruction (it does with GOAMD64=v3), which changes the last bit now and then, and the
// AVX2 kernel (exp_amd64.s), which rounds each operation, would no longer give the same bits.
func expReduce(x float64) (r float64, k uint64) {
	z := float64(x*expInvLn2N) + expShift
	kd := z - expShift
	return (x - float64(kd*expLn2NHi)) - float64(kd*expLn2NLo), math.Float64bits(z)
}

// expRebuild returns e^x = 2^(k/128) · e^r for expReduce's r and k: 2^(k/128) = 2^(k>>7) · 2^(j/128), j the
// low 7 bits of k, is the table entry's bits plus k shifted into the exponent (expTable holds the entries
// with j<<45 subtracted, so k<<45 adds both k>>7 to the exponent, in two's complement, and nothing to the
// mantissa); e^r − 1 is tail + r + r²/2 + r³/6 + r⁴/24 + r⁵/120, evaluated as
// ((tail + r) + r²·(1/2 + r·(1/6))) + (r²·r²)·(1/24 + r·(1/120)), each operation rounded (no FMA: see
// expReduce).
func expRebuild(r float64, k uint64) float64 {
	j := k % expN
	scale := math.Float64frombits(expTable[j] + k<<(52-7))
	r2 := r * r
	p := expTail[j] + r + float64(r2*(0.5+float64(r*(1.0/6)))) + float64(float64(r2*r2)*(1.0/24+float64(r*(1.0/120))))
	return scale + float64(scale*p)
}

// expSlow is e^x outside expShifted's fast range: 0 below math.Exp's underflow bound, else math.Exp (out of
// line, so that the loops, which rarely call it, stay small).
//
//go:noinline
func expSlow(x float64) float64 {
	if x < expUnderflow {
		return 0
	}
	return math.Exp(x)
}

const (
	expN       = 128
	expShift   = 0x1.8p52
	expInvLn2N = 128 / math.Ln2
	// expFastMin is the smallest x the fast path takes: below it 2^(k/128) is subnormal.
	expFastMin = -708
	// expUnderflow is math.Exp's bound: e^x < 2⁻¹⁰⁷⁵ below it, which rounds to 0.
	expUnderflow = -7.45133219101941108420e+02
)

var (
	// ln2/128 as hi + lo, hi with its low 18 bits zero (k < 2¹⁷ here, so k·hi needs no rounding either).
	expLn2NHi, expLn2NLo = splitLn2N()
	// expTable[j] holds the bits of 2^(j/128) rounded to a double, minus j<<45 (expRebuild); expTail[j] is
	// (exact − rounded) / rounded.
	expTable, expTail = expTables()
)

func splitLn2N() (hi, lo float64) {
	ln2 := bigLn2()
	v := new(big.Float).SetPrec(200).Quo(ln2, big.NewFloat(expN))
	f, _ := v.Float64()
	hi = math.Float64frombits(math.Float64bits(f) &^ (1<<18 - 1))
	rest := new(big.Float).SetPrec(200).Sub(v, new(big.Float).SetFloat64(hi))
	lo, _ = rest.Float64()
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

func expTables() (table [expN]uint64, tail [expN]float64) {
	// 2^(1/2^i) for i = 1..7 by repeated square roots; 2^(j/128) is the product over the bits of j.
	var roots [7]*big.Float
	r := new(big.Float).SetPrec(220).SetInt64(2)
	for i := range roots {
		r = new(big.Float).SetPrec(220).Sqrt(r)
		roots[i] = r
	}
	for j := range expN {
		v := new(big.Float).SetPrec(220).SetInt64(1)
		for i := range 7 {
			if j&(1<<(6-i)) != 0 {
				v.Mul(v, roots[i])
			}
		}
		f, _ := v.Float64()
		rounded := new(big.Float).SetPrec(220).SetFloat64(f)
		diff := new(big.Float).SetPrec(220).Sub(v, rounded)
		diff.Quo(diff, rounded)
		tail[j], _ = diff.Float64()
		table[j] = math.Float64bits(f) - uint64(j)<<(52-7)
	}
	return table, tail
}

//go:build !purego

package sqlnb

import "math"

// expShiftedAVX2 is expShiftedGo four values at a time (a lane each), with the same IEEE operations in the
// same order per lane, so the same bits: it sets dst[i·stride] = e^(src[i] − shift[i]) for the groups of four
// from i = 0 on while every lane is in the fast range [−708, 0] or below −745.13 (where e^x rounds to 0, as
// expSlow returns), and returns the values it wrote: n rounded down to four, or the start of the first group
// it left (a lane above 0, NaN, or in [−745.13, −708), whose e^x math.Exp computes).
//
//go:noescape
func expShiftedAVX2(dst *float64, stride int, src, shift *float64, n int) int

// posteriorsTwoAVX2 is posteriorsTwoGo four rows at a time, a lane each, on the same terms as
// expShiftedAVX2: it writes the two posteriors of rows 0, 1, ... (b0 and b1 the classes' scores, dst row-major)
// while the four rows of a group have their e^(−|b₁ − b₀|) in its range, and returns the rows it wrote.
//
//go:noescape
func posteriorsTwoAVX2(b0, b1, dst *float64, n int) int

// expVec holds, for the AVX2 kernels (exp_amd64.s), the constants expReduce and expRebuild use, the range
// bounds, what posteriorsTwo needs and the mask of the table offsets, each four times (a YMM vector): the
// kernels keep the first four in registers and read the others as operands.
var expVec = func() (v [13][4]uint64) {
	for i, x := range [...]float64{
		expInvLn2N, expShift, expLn2NHi, expLn2NLo, // expReduce
		1.0 / 6, 0.5, 1.0 / 120, 1.0 / 24, // expRebuild
		expFastMin, expUnderflow, // the range
		1, math.Copysign(0, -1), // posteriorsTwo: 1 + e, and the sign bit (−|d|)
		math.Float64frombits((expN - 1) << 4), // 16·(k mod 128): the offset of k's entry in expPair
	} {
		v[i] = [4]uint64{math.Float64bits(x), math.Float64bits(x), math.Float64bits(x), math.Float64bits(x)}
	}
	return v
}()

// expPair holds expTable[j] and expTail[j]'s bits side by side, so that the AVX2 kernels read both with one
// 16-byte load per lane: four loads and two shuffles, as fast as two VPGATHERQQ on the AMD EPYC measured,
// and not slowed down where gathers are (Intel CPUs with the Downfall microcode fix).
var expPair = func() (p [expN][2]uint64) {
	for j := range p {
		p[j] = [2]uint64{expTable[j], math.Float64bits(expTail[j])}
	}
	return p
}()

// expSumsAVX2 is expSumsGo four rows at a time, a lane each, on the same terms as expShiftedAVX2: for the
// groups of four rows from row 0 of jll (class c's scores n apart, K classes), while every exponential of a
// group is in its range, it writes e^(b_c − max b) to dst[row·K + c] and the rows' sums to sum[row], and
// returns the rows it wrote.
//
//go:noescape
func expSumsAVX2(jll *float64, n, K, rows int, dst, sum *float64) int

// scaleRowsAVX2 multiplies each of the n rows of K values at dst (row-major) by 1/sum[i], as Posteriors'
// Go loop does (the same division and products), four values at a time.
//
//go:noescape
func scaleRowsAVX2(dst *float64, K int, sum *float64, n int)

// posteriorsAVX512 is Posteriors (expSumsGo, then scaleRows) eight rows at a time for 3 ≤ K ≤
// posteriorsWide classes, with the same IEEE operations per row in the same order, so the same bits: for the
// groups of eight rows from row 0 of jll (class c's scores n apart) while every exponential of a group is in
// expShiftedAVX2's range, it writes the rows' posteriors to dst (row-major, K a row) and returns the rows it
// wrote, a multiple of eight. scratch holds posteriorsWide·8 values (a group's exponentials, class-major).
//
//go:noescape
func posteriorsAVX512(jll *float64, n, K, rows int, dst, scratch *float64) int

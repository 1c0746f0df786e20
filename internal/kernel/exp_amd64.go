//go:build !purego

package kernel

import "math"

// expShiftedAVX2 is expShiftedGo four values at a time (a lane each), with the same IEEE operations in the
// same order per lane, so the same bits: it sets dst[i·stride] = e^(src[i] − shift[i]) for the groups of four
// from i = 0 on while every difference is ≤ 0, and returns the values it wrote: n rounded down to four, or the
// start of the first group it left (a difference above 0 or NaN, whose e^x math.Exp computes).
//
//go:noescape
func expShiftedAVX2(dst *float64, stride int, src, shift *float64, n int) int

// posteriorsTwoAVX2 is posteriorsTwoGo four rows at a time, a lane each, on the same terms as
// expShiftedAVX2: it writes the two posteriors of rows 0, 1, ... (b0 and b1 the classes' scores, dst row-major)
// while no row of a group has a NaN difference, and returns the rows it wrote.
//
//go:noescape
func posteriorsTwoAVX2(b0, b1, dst *float64, n int) int

// expVec holds, for the AVX2 kernels (exp_amd64.s), the constants expReduce and expRebuild use and what
// posteriorsTwo needs, each four times (a YMM vector): the kernels keep 1 and expClamp in registers and read
// the others as operands.
var expVec = func() (v [20][4]uint64) {
	for i, x := range [...]float64{
		expInvLn2, expShift, expLn2Hi, expLn2Lo, // expReduce
		expC2, expC3, expC4, expC5, expC6, expC7, expC8, expC9, expC10, expC11, // expRebuild
		1,                 // expRebuild; posteriorsTwo: 1 + e
		expClamp, 0x1p-64, // expReduce, expRebuild
		math.Copysign(0, -1), // posteriorsTwo: the sign bit (−|d|)
		0,                    // (v[18], below)
		math.Inf(1),          // posteriorsTwo: a score of +∞
	} {
		v[i] = [4]uint64{math.Float64bits(x), math.Float64bits(x), math.Float64bits(x), math.Float64bits(x)}
	}
	v[18] = [4]uint64{expScale64, expScale64, expScale64, expScale64} // expRebuild's 2^(k+64)
	return v
}()

// expSumsAVX2 is expSumsGo four rows at a time, a lane each, on the same terms as expShiftedAVX2: for the
// groups of four rows from row 0 of jll (class c's scores n apart, K classes), while no b_c − max b of a
// group is NaN, it writes e^(b_c − max b) to dst[row·K + c] and the rows' sums to sum[row], and
// returns the rows it wrote.
//
//go:noescape
func expSumsAVX2(jll *float64, n, K, rows int, dst, sum *float64) int

// scaleRowsAVX2 multiplies each of the n rows of K values at dst (row-major) by 1/sum[i], as Posteriors'
// Go loop does (the same division and products), four values at a time.
//
//go:noescape
func scaleRowsAVX2(dst *float64, K int, sum *float64, n int)

// posteriorsAVX2 is Posteriors (expSumsGo, then scaleRows) eight rows at a time for 3 ≤ K ≤
// posteriorsWide classes, with the same IEEE operations per row in the same order, so the same bits: for the
// groups of eight rows from row 0 of jll (class c's scores n apart) while every exponential of a group is in
// EXP's range (no NaN difference), it writes the rows' posteriors to dst (row-major, K a row) and returns the rows it wrote, a
// multiple of eight. scratch holds posteriorsWide·8 values (a group's scores, then exponentials, class-major).
// With dst nil it is LogEvidences' kernel, for 1 ≤ K ≤ posteriorsWide: each row's B = max_c b_c goes to mx
// and S = Σ_c e^(b_c − B) (in class order) to sum, the same values the posteriors are computed from (mx and
// sum are not read otherwise).
//
//go:noescape
func posteriorsAVX2(jll *float64, n, K, rows int, dst, scratch, mx, sum *float64) int

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

// expVec holds, for the AVX2 kernels (exp_amd64.s), the constants expReduce and expRebuild use, with the
// range bounds and what posteriorsTwo needs: each is broadcast to the four lanes as the kernel starts.
var expVec = [...]float64{
	expInvLn2N, expShift, expLn2NHi, expLn2NLo, // expReduce
	1.0 / 6, 0.5, 1.0 / 120, 1.0 / 24, // expRebuild
	expFastMin, expUnderflow, // the range
	1, math.Copysign(0, -1), // posteriorsTwo: 1 + e, and the sign bit (−|d|)
}

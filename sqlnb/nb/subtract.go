package nb

import (
	"fmt"
	"math"
)

// forgetTolerance is the rounding Subtract accepts, relative to the values a result is computed from: a
// weight, sum or second moment (M2, a co-moment's diagonal) that comes out below zero by at most
// forgetTolerance × the combined statistic it was subtracted from is rounding and becomes 0; further below
// zero, the rows to forget were not part of the model (ErrCannotForget).
const ForgetTolerance = 1e-9

// subCount returns a - b for the row counts of a statistic (what names it), an error if it would be negative.
func SubCount(what string, a, b int64) (int64, error) {
	if b > a {
		return 0, fmt.Errorf("%s would be %d (%d - %d): more rows to forget than the model counted", what, a-b, a, b)
	}
	return a - b, nil
}

// subSum returns a - b for a non-negative sum (a weight, a count column's total): a result below zero by at
// most forgetTolerance × a is rounding and gives 0.
func SubSum(what string, a, b float64) (float64, error) {
	d := a - b
	if d < 0 {
		if -d <= ForgetTolerance*math.Abs(a) {
			return 0, nil
		}
		return 0, fmt.Errorf("%s would be %g (%g - %g): more to forget than the model counted", what, d, a, b)
	}
	return d, nil
}

// emptySum checks the sum left where no row is left: 0, within rounding (forgetTolerance × the sum before);
// anything else says the rows forgotten were not those trained.
func EmptySum(what string, left, before float64) error {
	if math.Abs(left) <= ForgetTolerance*math.Abs(before) {
		return nil
	}
	return fmt.Errorf("%s %g is left where no row is: the rows to forget differ from the rows trained", what, left)
}

// chanUnmerge is chanMerge's inverse, Chan, Golub and LeVeque's pairwise update solved for part a: given the
// combined (n, mean, M2) and part b's (nb, mb, M2b),
//
//	na = n - nb,  ma = mean + (mean - mb)·nb/na,  M2a = M2 - M2b - d²·na·nb/n  with d = mb - ma.
//
// na below zero (beyond rounding) is an error; na = 0 — for weights that are not whole numbers also na
// within rounding of 0, forgetTolerance × n — gives (0, 0, 0). An M2a below zero by at most
// forgetTolerance × (M2 + M2b + d²·na·nb/n) is rounding and gives 0; further below, an error. what names
// the statistic.
func ChanUnmerge(what string, n, mean, m2, nb, mb, m2b float64) (na, ma, m2a float64, err error) {
	if nb == 0 {
		return n, mean, m2, nil
	}
	if na, ma, err = MeanUnmerge(what, n, mean, nb, mb); err != nil || na == 0 {
		return na, ma, 0, err
	}
	d := mb - ma
	corr := d * d * na * nb / n
	m2a = m2 - m2b - corr
	if m2a < 0 {
		if -m2a > ForgetTolerance*(m2+m2b+corr) {
			return 0, 0, 0, fmt.Errorf("%s: the second moment M2 would be %g (below zero beyond rounding): the rows to forget differ from the rows trained", what, m2a)
		}
		m2a = 0
	}
	return na, ma, m2a, nil
}

// meanUnmerge is the mean part of chanUnmerge: na = n - nb, ma = mean + (mean - mb)·nb/na.
func MeanUnmerge(what string, n, mean, nb, mb float64) (na, ma float64, err error) {
	if nb == 0 {
		return n, mean, nil
	}
	if na, err = SubSum(what+" count", n, nb); err != nil {
		return 0, 0, err
	}
	counts := n == math.Trunc(n) && nb == math.Trunc(nb) // whole numbers subtract exactly
	if na == 0 || (!counts && na <= ForgetTolerance*n) {
		return 0, 0, nil
	}
	return na, mean + (mean-mb)*nb/na, nil
}

// MomentRounding is the ForgetWarner rule of moments (Gaussian variances, lda and qda co-moments): the mean of
// the rows left is (n·mean − n_B·mean_B)/n_A, so the rounding of a mean far from 0 (ε·|mean|) grows by n/n_A,
// and the variance by that over σ_A; the co-moment's own rounding grows by M2/M2_A. Forgetting most of the
// rows of values near 1e6 that vary by 0.003 left a variance 2e-6 off. before and after give each (feature,
// class)'s count, mean and M2.
func MomentRounding(before, after map[[2]string][3]float64) []RoundingWarning {
	var out []RoundingWarning
	for k, a := range after {
		b, ok := before[k]
		if !ok || a[0] < 2 || a[2] <= 0 || b[0] <= a[0] {
			continue
		}
		// The mean's rounding, and the training sums' own (~16 ε relative) grown by the co-moment's shrinking.
		out = append(out, RoundingWarning{Feature: k[0], Estimate: "variance", When: "the more so for values far from 0 for their spread",
			Off: 0x1p-53 * (math.Abs(b[1])*b[0]/a[0]/math.Sqrt(a[2]/a[0]) + 16*b[2]/a[2])})
	}
	return out
}

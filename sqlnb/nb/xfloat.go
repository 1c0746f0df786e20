package nb

import "math"

// XFloat is a float64 mantissa with its own binary exponent: m × 2^e with 0.5 ≤ |m| < 1 (or m = 0, ±Inf,
// NaN with e = 0). The row reference computes class scores with it, so that squares of values near 1e200,
// and sums of many such terms, do not overflow: a class whose log-density is -1e400 stays comparable with
// one at -2e400. Within float64's range its Add, Sub and Mul round exactly as float64's do (scaling by
// powers of two is exact), so the row reference agrees with the float64 vector kernel to the last bit
// where neither overflows.
type XFloat struct {
	m float64
	e int
}

// X converts f to an XFloat.
func X(f float64) XFloat {
	m, e := math.Frexp(f)
	return XFloat{m, e}
}

// Float returns x as a float64: ±Inf beyond its range, 0 (or a subnormal) below it.
func (x XFloat) Float() float64 { return math.Ldexp(x.m, x.e) }

// finite reports whether x is neither infinite nor NaN.
func (x XFloat) finite() bool { return x.m-x.m == 0 }

// Add returns x + y.
func (x XFloat) Add(y XFloat) XFloat {
	switch {
	case y.m == 0:
		return x
	case x.m == 0:
		return y
	case !x.finite() || !y.finite():
		return XFloat{x.m + y.m, 0}
	}
	if x.e < y.e {
		x, y = y, x
	}
	d := x.e - y.e
	if d > 60 { // |y| < 2^-60 |x|: float64 rounds x + y to x as well
		return x
	}
	m, e := math.Frexp(x.m + math.Ldexp(y.m, -d))
	if m == 0 {
		return XFloat{}
	}
	return XFloat{m, x.e + e}
}

// Neg returns -x.
func (x XFloat) Neg() XFloat { return XFloat{-x.m, x.e} }

// Sub returns x - y.
func (x XFloat) Sub(y XFloat) XFloat { return x.Add(y.Neg()) }

// Mul returns x × y.
func (x XFloat) Mul(y XFloat) XFloat {
	if !x.finite() || !y.finite() || x.m == 0 || y.m == 0 {
		return XFloat{x.m * y.m, 0}
	}
	m, e := math.Frexp(x.m * y.m)
	return XFloat{m, x.e + y.e + e}
}

// Greater reports whether x > y (false if either is NaN).
func (x XFloat) Greater(y XFloat) bool {
	return x.Sub(y).m > 0
}

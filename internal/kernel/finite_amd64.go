//go:build !purego

package kernel

// allFiniteAVX2 is allFinite for n values at x (n a multiple of 16): the OR of every x - x is 0 exactly when
// none is NaN (finite x gives +0, NaN and ±Inf give NaN).
//
//go:noescape
func allFiniteAVX2(x *float64, n int) bool

package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAllFiniteAndFill: allFinite (AVX2 and Go) says false exactly when one value among finite ones (±0,
// ±MaxFloat64, subnormals) is NaN, +Inf or -Inf, at every position of every length up to 70; fill writes
// its value everywhere.
func TestAllFiniteAndFill(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	finite := []float64{0, math.Copysign(0, -1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1, -2.5}
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	defer func(old bool) { UseAVX2 = old }(UseAVX2)
	for _, avx := range []bool{false, UseAVX2} {
		UseAVX2 = avx
		for n := range 71 {
			x := make([]float64, n)
			for i := range x {
				x[i] = finite[r.IntN(len(finite))]
			}
			if !AllFinite(x) {
				t.Fatalf("avx2=%v n=%d: finite values reported not finite", avx, n)
			}
			for at := range n {
				for _, v := range bad {
					old := x[at]
					x[at] = v
					if AllFinite(x) {
						t.Fatalf("avx2=%v n=%d: %v at %d not found", avx, n, v, at)
					}
					x[at] = old
				}
			}
			Fill(x, -3.25)
			for i, v := range x {
				if v != -3.25 {
					t.Fatalf("fill n=%d: x[%d] = %v", n, i, v)
				}
			}
		}
	}
}

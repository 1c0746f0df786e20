package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// argmaxRef is Argmax as it was before the rows were blocked: class by class over the rows, top and dst
// updated in place.
func argmaxRef(jll []float64, n, K int, dst []int32, top []float64) {
	dst, top = dst[:n], top[:n]
	copy(top, jll[:n])
	clear(dst)
	for c := 1; c < K; c++ {
		col := jll[c*n : c*n+n]
		ci := int32(c)
		for i, v := range col {
			t := top[i]
			var g int32
			if v > t {
				g = 1
			}
			dst[i] += g * (ci - dst[i])
			top[i] = max(v, t)
		}
	}
}

// TestArgmaxBlocked: Argmax (the AVX2 kernel where the CPU has it, and the blocked Go loop) gives argmaxRef's
// classes and maxima (as numbers: the sign of a zero maximum may differ, it is scratch) for 1..12 classes and
// chunk sizes around multiples of 4 and 16, with ties, ±0, ±Inf and NaN scores.
func TestArgmaxBlocked(t *testing.T) {
	defer func(old bool) { UseAVX2 = old }(UseAVX2)
	for _, avx := range []bool{false, UseAVX2} {
		UseAVX2 = avx
		t.Run(fmt.Sprint("avx2=", avx), testArgmax)
	}
}

func testArgmax(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -3, -3}
	for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 2047, 2048} {
		for K := 1; K <= 12; K++ {
			jll := make([]float64, n*K)
			for k := range jll {
				if r.IntN(4) == 0 {
					jll[k] = special[r.IntN(len(special))]
				} else {
					jll[k] = float64(r.IntN(5)) - 10 // ties
				}
			}
			got, want := make([]int32, n), make([]int32, n)
			gotTop, wantTop := make([]float64, n), make([]float64, n)
			Argmax(jll, n, K, got, gotTop)
			argmaxRef(jll, n, K, want, wantTop)
			for i := range n {
				if got[i] != want[i] || !(gotTop[i] == wantTop[i] || math.IsNaN(gotTop[i]) && math.IsNaN(wantTop[i])) {
					t.Fatalf("n=%d K=%d row %d: got class %d (top %v), want %d (top %v); scores %v", n, K, i, got[i], gotTop[i], want[i], wantTop[i],
						fmt.Sprint(column(jll, n, K, i)))
				}
			}
		}
	}
}

// column returns row i's K scores from class-major jll.
func column(jll []float64, n, K, i int) []float64 {
	out := make([]float64, K)
	for c := range K {
		out[c] = jll[c*n+i]
	}
	return out
}

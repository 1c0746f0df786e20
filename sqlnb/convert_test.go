package sqlnb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestInt32sToFloats: every length from 0 to 70, at every alignment of the first value mod 4, with the
// extremes of int32 among random values, converts as float64(v) does, with the AVX2 kernel and without.
func TestInt32sToFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	defer func(old bool) { useAVX2 = old }(useAVX2)
	for _, avx := range []bool{false, useAVX2} {
		useAVX2 = avx
		for n := range 71 {
			for off := range 4 {
				src := make([]int32, off+n)
				for i := range src {
					switch r.IntN(6) {
					case 0:
						src[i] = math.MinInt32
					case 1:
						src[i] = math.MaxInt32
					default:
						src[i] = r.Int32() - math.MaxInt32/2
					}
				}
				dst := make([]float64, n+1)
				dst[n] = -1 // must stay as it is
				Int32sToFloats(dst, src[off:])
				for i, v := range src[off:] {
					if dst[i] != float64(v) {
						t.Fatalf("avx2=%v n=%d off=%d: dst[%d] = %v, want %v", avx, n, off, i, dst[i], float64(v))
					}
				}
				if dst[n] != -1 {
					t.Fatalf("avx2=%v n=%d off=%d: wrote past len(src)", avx, n, off)
				}
			}
		}
	}
}

package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestInt32sToFloats: every length from 0 to 70, at every alignment of the first value mod 4, with the
// extremes of int32 among random values, converts as float64(v) does, with the AVX2 kernel and without.
func TestInt32sToFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	defer func(old bool) { UseAVX2 = old }(UseAVX2)
	for _, avx := range []bool{false, UseAVX2} {
		UseAVX2 = avx
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

// TestInt64sToFloats: Int64sToFloats equals Go's float64(int64) bit for bit with and without AVX2, values
// at and around ±2⁵¹ (the kernel's exact range), ±2⁵³, the int64 extremes and 0, lengths 0..70 at four
// alignments, groups the kernel must hand back anywhere in the slice.
func TestInt64sToFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	edges := []int64{0, 1, -1, 1 << 51, 1<<51 - 1, -1 << 51, -1<<51 - 1, 1 << 53, 1<<53 + 1, -1<<53 - 1,
		math.MaxInt64, math.MinInt64, math.MaxInt64 - 1<<50, 1<<62 + 12345}
	defer func(old bool) { UseAVX2 = old }(UseAVX2)
	for _, avx := range []bool{false, UseAVX2} {
		UseAVX2 = avx
		for n := range 71 {
			for off := range 4 {
				src := make([]int64, off+n)
				mode := r.IntN(3) // 0: a quarter out of [−2⁵¹, 2⁵¹); 1: none; 2: one, anywhere
				for i := range src {
					switch k := r.IntN(8); {
					case k == 0 && mode == 0:
						src[i] = edges[r.IntN(len(edges))]
					case k == 1 && mode == 0:
						src[i] = r.Int64()
					default:
						src[i] = r.Int64N(1<<20) - 1<<19
					}
				}
				if mode == 2 && n > 0 {
					src[off+r.IntN(n)] = edges[7+r.IntN(len(edges)-7)] // 1<<53 and beyond
				}
				dst := make([]float64, n+1)
				dst[n] = -1 // must stay as it is
				Int64sToFloats(dst, src[off:])
				for i, v := range src[off:] {
					if math.Float64bits(dst[i]) != math.Float64bits(float64(v)) {
						t.Fatalf("avx2=%v n=%d off=%d: dst[%d] = %v, want %v (from %d)", avx, n, off, i, dst[i], float64(v), v)
					}
				}
				if dst[n] != -1 {
					t.Fatalf("avx2=%v n=%d off=%d: wrote past len(src)", avx, n, off)
				}
			}
		}
	}
}

// TestInt64sKernelRange: the AVX2 kernel converts every whole group of four when all values lie in
// [−2⁵¹, 2⁵¹) (sixteen at a time), and stops at the group of four holding the first value outside it.
func TestInt64sKernelRange(t *testing.T) {
	if !UseAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 4; n < 100; n++ {
		src := make([]int64, n)
		for i := range src {
			src[i] = r.Int64N(1<<52) - 1<<51
		}
		dst := make([]float64, n)
		if got := int64sToFloatsAVX2(&dst[0], &src[0], n&^3); got != n&^3 {
			t.Fatalf("n=%d: converted %d, want %d", n, got, n&^3)
		}
		bad := r.IntN(n)
		src[bad] = 1 << 51
		if got, want := int64sToFloatsAVX2(&dst[0], &src[0], n&^3), min(bad&^3, n&^3); got != want {
			t.Fatalf("n=%d, 2⁵¹ at %d: converted %d, want %d", n, bad, got, want)
		}
	}
}

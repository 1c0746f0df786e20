//go:build !purego

package kernel

// int32sToFloatsAVX2 converts n int32 (n a multiple of 16) at src to float64 at dst (VCVTDQ2PD).
//
//go:noescape
func int32sToFloatsAVX2(dst *float64, src *int32, n int)

// int64sToFloatsAVX2 converts int64 at src to float64 at dst four at a time, n a multiple of 4, and returns
// how many it converted: it stops at the first group of four with a value outside [−2⁵¹, 2⁵¹).
//
//go:noescape
func int64sToFloatsAVX2(dst *float64, src *int64, n int) int

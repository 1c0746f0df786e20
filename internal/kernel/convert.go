package kernel

// Int32sToFloats writes float64(src[i]) to dst[i] for every i < len(src) (exact: every int32 is a float64),
// sixteen at a time with AVX2 where the CPU has it: the reading of an INTEGER column into Batch.Num, which
// costs as much as the count-column kernel when done one value at a time. len(dst) ≥ len(src).
func Int32sToFloats(dst []float64, src []int32) {
	dst = dst[:len(src)]
	i := 0
	if UseAVX2 && len(src) >= 16 {
		i = len(src) &^ 15
		int32sToFloatsAVX2(&dst[0], &src[0], i)
	}
	for ; i < len(src); i++ {
		dst[i] = float64(src[i])
	}
}

// Int64sToFloats writes float64(src[i]) to dst[i] for every i < len(src), four at a time with AVX2 where
// the CPU has it (BIGINT, the type DuckDB's CSV reader gives integer columns). AVX2 has no int64 → float64
// instruction: a group of four whose values all lie in [−2⁵¹, 2⁵¹) is converted exactly by adding x to the
// bits of 1.5·2⁵² (the double 1.5·2⁵² + x) and subtracting 1.5·2⁵²; a group with a value outside that range
// is converted here, by Go's conversion (rounded to nearest). len(dst) ≥ len(src).
func Int64sToFloats(dst []float64, src []int64) {
	dst = dst[:len(src)]
	n := len(src)
	byFours(n, func(i int) int { return int64sToFloatsAVX2(&dst[i], &src[i], (n-i)&^3) },
		func(i, j int) {
			for ; i < j; i++ {
				dst[i] = float64(src[i])
			}
		})
}

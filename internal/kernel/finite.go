package kernel

// allFinite reports whether every element of x is finite (x - x is 0: not NaN or ±Inf), sixteen at a time
// with AVX2 where the CPU has it: fixup's first look at each class's scores, most often all finite.
func AllFinite(x []float64) bool {
	i := 0
	if UseAVX2 && len(x) >= 16 {
		i = len(x) &^ 15
		if !allFiniteAVX2(&x[0], i) {
			return false
		}
	}
	for _, v := range x[i:] {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// byFours runs an AVX2 kernel over n values (or rows) in groups of four and Go for what it leaves: kernel(i)
// does groups from i on and returns how many values it did (a multiple of four), stopping at a group with a
// lane it does not take; goLoop(i, j) does values i..j-1 — that group, then the next kernel call, and at the
// end the last n mod 4. Without AVX2 goLoop does all of them. The kernels' callers (expShifted, expSumsBlock,
// posteriorsTwo, Int64sToFloats) share it.
func byFours(n int, kernel func(i int) int, goLoop func(i, j int)) {
	i := 0
	for UseAVX2 && n-i >= 4 {
		i += kernel(i)
		if n-i >= 4 {
			goLoop(i, i+4)
			i += 4
		}
	}
	if i < n {
		goLoop(i, n)
	}
}

// fill sets every element of x to v by doubling copies (copy is vectorised, a store loop is not).
func Fill(x []float64, v float64) {
	if len(x) == 0 {
		return
	}
	x[0] = v
	for done := 1; done < len(x); done *= 2 {
		copy(x[done:], x[:done])
	}
}

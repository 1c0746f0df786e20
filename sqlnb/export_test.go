package sqlnb

// LooksLikeIdentifier exposes looksLikeIdentifier to the tests of package sqlnb_test.
var LooksLikeIdentifier = looksLikeIdentifier

// ExcludeHint exposes excludeHint to the tests of package sqlnb_test.
var ExcludeHint = excludeHint

// SetLogisticSampleRows makes logistic regression fits keep n rows for their Hessian (so that a small
// source is fitted as a large one is: sub-sampled); the returned function restores the default.
func SetLogisticSampleRows(n int) func() {
	old := lrSampleRows
	lrSampleRows = n
	return func() { lrSampleRows = old }
}

// RowKernels names the per-group row kernels of this platform (the Go one, and the AVX2 one where the CPU has
// it); UseRowKernel selects one and returns the function that restores the default.
func RowKernels() []string {
	if useAVX2 {
		return []string{"go", "avx2"}
	}
	return []string{"go"}
}

func UseRowKernel(name string) func() {
	old := useAVX2
	useAVX2 = name == "avx2"
	return func() { useAVX2 = old }
}

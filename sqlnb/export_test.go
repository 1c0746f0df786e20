package sqlnb

import (
	"database/sql"

	"github.com/sqlnb/sqlnb/internal/kernel"
)

// LooksLikeIdentifier exposes looksLikeIdentifier to the tests of package sqlnb_test.
var LooksLikeIdentifier = looksLikeIdentifier

// ExcludeHint exposes excludeHint to the tests of package sqlnb_test.
var ExcludeHint = excludeHint

// RowKernels names the per-group row kernels of this platform (the Go one, and the AVX2 one where the CPU has
// it); UseRowKernel selects one and returns the function that restores the default.
func RowKernels() []string {
	if kernel.UseAVX2 {
		return []string{"go", "avx2"}
	}
	return []string{"go"}
}

func UseRowKernel(name string) func() {
	old := kernel.UseAVX2
	kernel.UseAVX2 = name == "avx2"
	return func() { kernel.UseAVX2 = old }
}

// OpenUDF opens a database of package udf (set by the external tests, which may import udf): its
// connections offer nb's fast paths (nb.NumberStreamConn, ...).
var OpenUDF func(dsn string) (*sql.DB, error)

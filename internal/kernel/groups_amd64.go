//go:build !purego

package kernel

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the AVX2 kernels: scoreRowsAVX2 (groups_amd64.s) for the per-group rows, and the
// exponentials of the posteriors (exp_amd64.s), which also need FMA (every AVX2 CPU has it, but it is a
// feature of its own).
var UseAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// scoreRowsAVX2 is scoreRowsGo with four classes per AVX2 vector (a lane each): the same operations on each
// lane, so the same bits. table holds the models' entries of entry bytes, cols the F input columns; row i
// (of n) reads model[i]'s entry, writes out[c·n+i] for classes c < K and sets bad[i] when a score is not
// finite.
//
//go:noescape
func ScoreRowsAVX2(table *float64, entry uintptr, cols *unsafe.Pointer, F, K int, model *int32, n int, out *float64, bad *bool)

package kernel

import "golang.org/x/sys/cpu"

// hasFMA reports whether math.FMA is one instruction on this CPU (amd64: the FMA extension, Haswell and
// later). Without it Go computes math.FMA in software, ~50 times slower: the count scores and the
// exponentials then take the separate product and sum (count scores) or math.Exp (exponentials) instead,
// with the same result to within a rounding, and the same on every path of this machine (the AVX2 kernels,
// which need FMA, do not run here).
var HasFMA = cpu.X86.HasFMA

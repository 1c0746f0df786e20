//go:build !amd64

package kernel

import "runtime"

// hasFMA reports whether math.FMA is one instruction here (fma_amd64.go): on these architectures the
// compiler emits it unconditionally; elsewhere (386, wasm, mips...) math.FMA is software.
var HasFMA = map[string]bool{"arm64": true, "ppc64": true, "ppc64le": true, "s390x": true, "riscv64": true, "loong64": true}[runtime.GOARCH]

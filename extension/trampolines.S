//go:build duckdb_use_static_lib && linux && amd64

// trampolines.S: one x86-64 entry point per function of DuckDB's C API, each a jump through the host's
// function table (nb_api, copied at LOAD). duckdb-go and its bindings, compiled into the extension with the
// build tag duckdb_use_static_lib, call duckdb_* functions by name; these definitions are what they link
// to, so every call goes to the DuckDB that loaded the extension and none is linked in. The arguments stay
// in their registers: a jump needs no knowledge of the signature. The symbols are hidden (not exported)
// and weak, so entry.c can intercept a few (connections of the kept pool); nb_host_<name> always reaches
// the host's function.
#include "slots.h"

	.text
#define NB_SLOT(i, name)                                          \
	.globl name; .weak name; .hidden name; .type name, @function; \
	.globl nb_host_##name; .hidden nb_host_##name; .type nb_host_##name, @function; \
	name: nb_host_##name: jmp *nb_api+8*i(%rip);

NB_SLOTS(NB_SLOT)

// nb_missing_slot: the table entry of a function the host does not have (entry.c). It returns zero in every
// register a C function returns in (rax, rdx, xmm0, xmm1) and touches nothing else.
	.globl nb_missing_slot; .hidden nb_missing_slot; .type nb_missing_slot, @function
nb_missing_slot:
	xorl %eax, %eax
	xorl %edx, %edx
	xorps %xmm0, %xmm0
	xorps %xmm1, %xmm1
	ret
	.size nb_missing_slot, .-nb_missing_slot

	.section .note.GNU-stack,"",@progbits

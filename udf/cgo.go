package udf

/*
#include <stdlib.h>
#include <stdint.h>

void nbScalarBind(void *info);
void nbScalarExec(void *info, void *input, void *output);
void nbTableBind(void *info);
void nbTableInit(void *info);
void nbTableExec(void *info, void *output);
void nbDeleteHandle(void *data);
void *nbCopyHandle(void *data);

static void *nb_alloc_handle(uintptr_t h) {
	uintptr_t *p = malloc(sizeof(uintptr_t));
	*p = h;
	return p;
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/cgo"
	"unsafe"
)

// Function pointers of the exported callbacks, for the C API setters.
var (
	scalarBindPtr  = unsafe.Pointer(C.nbScalarBind)
	scalarExecPtr  = unsafe.Pointer(C.nbScalarExec)
	tableBindPtr   = unsafe.Pointer(C.nbTableBind)
	tableInitPtr   = unsafe.Pointer(C.nbTableInit)
	tableExecPtr   = unsafe.Pointer(C.nbTableExec)
	deleteHandlePt = unsafe.Pointer(C.nbDeleteHandle)
	copyHandlePtr  = unsafe.Pointer(C.nbCopyHandle)
)

// newHandle stores v behind a cgo.Handle in C memory, for DuckDB to hold as extra info, bind data or
// init data; nbDeleteHandle releases it.
func newHandle(v any) unsafe.Pointer {
	return C.nb_alloc_handle(C.uintptr_t(cgo.NewHandle(v)))
}

// handleValue returns the Go value behind a pointer made by newHandle.
func handleValue[T any](p unsafe.Pointer) T {
	return cgo.Handle(*(*C.uintptr_t)(p)).Value().(T)
}

//export nbDeleteHandle
func nbDeleteHandle(p unsafe.Pointer) {
	defer func() { _ = recover() }()
	if p == nil {
		return
	}
	cgo.Handle(*(*C.uintptr_t)(p)).Delete()
	C.free(p)
}

//export nbCopyHandle
func nbCopyHandle(p unsafe.Pointer) (copied unsafe.Pointer) {
	defer func() {
		if recover() != nil {
			copied = nil
		}
	}()
	// Bound functions are immutable after bind: a copy may share the Go value.
	return newHandle(cgo.Handle(*(*C.uintptr_t)(p)).Value())
}

// recovered turns a panic in a callback into an error message for DuckDB (a panic that reached DuckDB would
// end the host process: the sqlnb binary, or any client that loaded the extension). *name is the function's
// name, "sqlnb" until the callback has read it. Every exported callback defers it first. A duckdbError (a
// DuckDB call that threw, guard.go) is DuckDB's message, not an internal error.
func recovered(name *string, setError func(string)) {
	if r := recover(); r != nil {
		if e, ok := r.(duckdbError); ok {
			setError(fmt.Sprintf("%s: %s", *name, e.msg))
			return
		}
		setError(fmt.Sprintf("%s: internal error: %v", *name, r))
	}
}

// testPanic names a callback that panics on purpose, as "function:stage" (stage bind, init or exec): the
// extension's integration tests check that the panic reaches the client as an error (SQLNB_TEST_PANIC).
var testPanic = os.Getenv("SQLNB_TEST_PANIC")

// fault panics if testPanic names this function and stage.
func fault(name, stage string) {
	if testPanic != "" && testPanic == name+":"+stage {
		panic("test panic (SQLNB_TEST_PANIC=" + testPanic + ")")
	}
}

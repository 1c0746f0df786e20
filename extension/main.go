//go:build duckdb_use_static_lib && linux && amd64

// Command extension is sqlnb as a loadable DuckDB extension (make extension → build/sqlnb.duckdb_extension):
// the functions of package udf, registered by the same code as in the sqlnb binary, in a c-shared library
// that links no DuckDB. duckdb-go and its bindings are compiled with the build tag duckdb_use_static_lib,
// which leaves DuckDB's C API functions undefined; trampolines.S defines each as a jump through the function
// table the host hands over at LOAD (entry.c), so every call goes to the DuckDB that loaded the extension.
//
// After LOAD, DuckDB's C API gives no way to a connection, so entry.c opens a pool of connections during
// LOAD and keeps it; nbInit wraps the pool in a duckdb-go connector (its open, connect and disconnect are
// intercepted in entry.c) and hands it to udf.Attach, which reads model tables, trains and cross-validates
// on it exactly as the binary does on its own pool.
package main

/*
#include <stdlib.h>
#include "entry.h"
#include "slots.h"

void nbVersion(void *info, void *input, void *output);
void nbABICheck(void *info, void *input, void *output);
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/internal/duckdbline"
	"github.com/sqlnb/sqlnb/udf"
)

// version is the extension version (make extension sets it from git describe).
var version = "dev"

// slotCount is how many functions of DuckDB's C API the extension knows (slots.h).
const slotCount = C.NB_SLOT_COUNT

func main() {}

var initMu sync.Mutex

// nbHostSlots returns how many slots of its function table the host hands over, from the version it
// reports (duckdb_library_version); for a host the extension cannot run in it returns 0 and sets *msg to the
// reason (malloc'd). SQLNB_TEST_HOST_VERSION replaces the reported version (the integration tests check the
// refusal in a real host with it).
//
//export nbHostSlots
func nbHostSlots(version *C.char, msg **C.char) (n C.int) {
	defer func() {
		if r := recover(); r != nil {
			*msg, n = C.CString(fmt.Sprintf("sqlnb: internal error at LOAD: %v", r)), 0
		}
	}()
	v := C.GoString(version)
	if s := os.Getenv("SQLNB_TEST_HOST_VERSION"); s != "" {
		v = s
	}
	slots, err := hostSlots(v)
	if err != nil {
		*msg = C.CString("sqlnb: " + err.Error())
		return 0
	}
	return C.int(slots)
}

// hostSlots is the length of the function table a DuckDB of the given version hands over for C API v1.5.6
// (internal/duckdbline decides), or why the extension does not run in it.
func hostSlots(version string) (int, error) {
	l, err := duckdbline.Parse(version)
	if err != nil {
		return 0, fmt.Errorf("cannot tell which DuckDB loads the extension: %w; sqlnb runs in DuckDB v1.5.6 and later", err)
	}
	n := l.ExtensionSlots()
	if n == 0 {
		return 0, fmt.Errorf("DuckDB %s is older than v1.5.6, the first DuckDB sqlnb runs in", l)
	}
	return n, nil
}

// nbInit attaches sqlnb to the database of the pool k; it returns an error message (malloc'd) or nil.
//
//export nbInit
func nbInit(k *C.nb_kept) (msg *C.char) {
	defer func() {
		if r := recover(); r != nil {
			msg = C.CString(fmt.Sprintf("sqlnb: internal error at LOAD: %v", r))
		}
	}()
	initMu.Lock()
	defer initMu.Unlock()
	C.nb_pending_open = k
	c, err := duckdb.NewConnector("", nil)
	C.nb_pending_open = nil
	if err != nil {
		return C.CString("sqlnb: " + err.Error())
	}
	if err := udf.Attach(c, int(k.n)); err != nil {
		return C.CString("sqlnb: " + err.Error())
	}
	if err := registerExtras(mapping.Connection{Ptr: unsafe.Pointer(k.conns[0])}); err != nil {
		return C.CString("sqlnb: " + err.Error())
	}
	return nil
}

// registerExtras registers the extension's own functions: nb_extension_version() and nb_ext_abi_check()
// (every slot of the host's function table is the function slots.h names, where the host exports names).
func registerExtras(con mapping.Connection) error {
	for _, f := range []struct {
		name string
		fn   unsafe.Pointer
	}{{"nb_extension_version", unsafe.Pointer(C.nbVersion)}, {"nb_ext_abi_check", unsafe.Pointer(C.nbABICheck)}} {
		sf := mapping.CreateScalarFunction()
		mapping.ScalarFunctionSetName(sf, f.name)
		t := mapping.CreateLogicalType(mapping.TypeVarchar)
		mapping.ScalarFunctionSetReturnType(sf, t)
		mapping.DestroyLogicalType(&t)
		mapping.ScalarFunctionSetFunction(sf, f.fn)
		mapping.ScalarFunctionSetSpecialHandling(sf)
		state := mapping.RegisterScalarFunction(con, sf)
		mapping.DestroyScalarFunction(&sf)
		if state == mapping.StateError {
			return fmt.Errorf("register %s", f.name)
		}
	}
	return nil
}

//export nbVersion
func nbVersion(info, input, output unsafe.Pointer) { constant(info, input, output, version) }

//export nbABICheck
func nbABICheck(info, input, output unsafe.Pointer) {
	report := C.nb_abi_check()
	defer C.free(unsafe.Pointer(report))
	constant(info, input, output, C.GoString(report))
}

// constant writes s into every row of the output vector.
func constant(info, input, output unsafe.Pointer, s string) {
	defer func() {
		if r := recover(); r != nil {
			mapping.ScalarFunctionSetError(mapping.FunctionInfo{Ptr: info}, fmt.Sprintf("sqlnb: internal error: %v", r))
		}
	}()
	n := mapping.DataChunkGetSize(mapping.DataChunk{Ptr: input})
	out := mapping.Vector{Ptr: output}
	for i := mapping.IdxT(0); i < n; i++ {
		mapping.VectorAssignStringElement(out, i, s)
	}
}

package udf

/*
#include <stdint.h>
#include <stdlib.h>
int nb_list_vector_reserve(void *vector, uint64_t n, char **msg);
int nb_vector_assign_string(void *vector, uint64_t index, const char *str, uint64_t len, char **msg);
int nb_vector_ensure_validity_writable(void *vector, char **msg);
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// The DuckDB C API calls of the scoring and table callbacks that allocate go through guard.cc, which catches
// the C++ exception DuckDB throws when an allocation fails (memory_limit reached): uncaught, it would cross
// Go's frames and abort the process. A failure panics with a duckdbError, which recovered (cgo.go) reports as
// the SQL function's error: the query fails with DuckDB's own message, the process and session live on.

// duckdbError is DuckDB's message from an exception guard.cc caught.
type duckdbError struct{ msg string }

func (e duckdbError) Error() string { return e.msg }

// guardErr is nil if rc reports success, else a duckdbError: DuckDB's message (msg, which it frees), or what
// failed.
func guardErr(rc C.int, msg *C.char, what string) error {
	switch rc {
	case 0:
		return nil
	case 1:
		return duckdbError{what + " failed"}
	}
	defer C.free(unsafe.Pointer(msg))
	return duckdbError{exceptionMessage(C.GoString(msg))}
}

// exceptionMessage turns an exception's what() into a message: DuckDB's exceptions carry JSON
// ({"exception_type": "Out of Memory", "exception_message": "..."}); other text is kept as it is.
func exceptionMessage(what string) string {
	var e struct {
		Type    string `json:"exception_type"`
		Message string `json:"exception_message"`
	}
	if strings.HasPrefix(what, "{") && json.Unmarshal([]byte(what), &e) == nil && e.Message != "" {
		if e.Type != "" {
			return fmt.Sprintf("%s Error: %s", e.Type, e.Message)
		}
		return e.Message
	}
	return what
}

// listReserve is mapping.ListVectorReserve, guarded (a failure panics with the duckdbError).
func listReserve(vec mapping.Vector, n int) {
	var msg *C.char
	rc := C.nb_list_vector_reserve(vec.Ptr, C.uint64_t(n), &msg) // its own statement: msg is read after the call
	if err := guardErr(rc, msg, "reserving a list vector"); err != nil {
		panic(err)
	}
}

// assignString is mapping.VectorAssignStringElement, guarded (a failure panics with the duckdbError).
func assignString(vec mapping.Vector, i int, s string) {
	if err := tryAssignString(vec, i, s); err != nil {
		panic(err)
	}
}

// tryAssignString is assignString returning the duckdbError, for code outside DuckDB's callbacks (the
// appender), where no recovered handler is.
func tryAssignString(vec mapping.Vector, i int, s string) error {
	var msg, p *C.char
	if len(s) > 0 {
		p = (*C.char)(unsafe.Pointer(unsafe.StringData(s)))
	}
	rc := C.nb_vector_assign_string(vec.Ptr, C.uint64_t(i), p, C.uint64_t(len(s)), &msg)
	return guardErr(rc, msg, "writing a string")
}

// ensureValidityWritable is mapping.VectorEnsureValidityWritable, guarded (a failure panics with the
// duckdbError).
func ensureValidityWritable(vec mapping.Vector) {
	var msg *C.char
	rc := C.nb_vector_ensure_validity_writable(vec.Ptr, &msg)
	if err := guardErr(rc, msg, "making a validity mask writable"); err != nil {
		panic(err)
	}
}

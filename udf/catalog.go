package udf

/*
#include <stdint.h>
#include <stdlib.h>

// Declared here from DuckDB's duckdb.h (C API v1.5.6, stable): the catalog of a client context, seen with
// that context's transaction. The symbols come with the DuckDB library duckdb-go links.
typedef void *nb_client_context;
typedef void *nb_catalog;
typedef void *nb_catalog_entry;
nb_catalog duckdb_client_context_get_catalog(nb_client_context context, const char *catalog_name);
nb_catalog_entry duckdb_catalog_get_entry(nb_catalog catalog, nb_client_context context, int entry_type,
                                          const char *schema_name, const char *entry_name);
void duckdb_destroy_catalog(nb_catalog *catalog);
void duckdb_destroy_catalog_entry(nb_catalog_entry *entry);

// 6 is DUCKDB_CATALOG_ENTRY_TYPE_SEQUENCE, 1 TABLE, 3 VIEW.
static int nb_has_entry(nb_client_context ctx, const char *catalog, int type, const char *schema, const char *name) {
	nb_catalog cat = duckdb_client_context_get_catalog(ctx, catalog);
	if (!cat) return -1;
	nb_catalog_entry e = duckdb_catalog_get_entry(cat, ctx, type, schema, name);
	int found = e != 0;
	if (e) duckdb_destroy_catalog_entry(&e);
	duckdb_destroy_catalog(&cat);
	return found;
}
*/
import "C"

import (
	"strings"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Catalog entry types of duckdb_catalog_get_entry.
const (
	entryTable    = 1
	entryView     = 3
	entrySequence = 6
)

// seesEntry reports whether the transaction of the client context cctx sees the catalog entry schema.name of
// the given type in catalog (a database name): found, and ok false when the catalog could not be read.
func seesEntry(cctx mapping.ClientContext, catalog string, typ int, schema, name string) (found, ok bool) {
	if cctx.Ptr == nil {
		return false, false
	}
	cat, sch, nm := C.CString(catalog), C.CString(schema), C.CString(name)
	defer C.free(unsafe.Pointer(cat))
	defer C.free(unsafe.Pointer(sch))
	defer C.free(unsafe.Pointer(nm))
	switch C.nb_has_entry(C.nb_client_context(cctx.Ptr), cat, C.int(typ), sch, nm) {
	case 1:
		return true, true
	case 0:
		return false, true
	}
	return false, false
}

// callerTemporary reports whether name (as a source argument) is a temporary table or view of the caller's
// connection: sqlnb's own connection cannot see it.
func callerTemporary(cctx mapping.ClientContext, name string) bool {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " ().'") {
		return false
	}
	for _, typ := range []int{entryTable, entryView} {
		if found, ok := seesEntry(cctx, "temp", typ, "main", name); ok && found {
			return true
		}
	}
	return false
}

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
	"fmt"
	"regexp"
	"strings"
	"unsafe"

	"github.com/sqlnb/sqlnb/queries"

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

// bareName matches a source given as one unqualified identifier (plain or double-quoted).
var bareName = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_$]*|"([^"]|"")+")\s*$`)

// ambiguousSource returns why the source name src cannot be resolved as the caller would resolve it ("" if it
// can): a bare table name held by more than one schema or attached database. sqlnb reads sources on its own
// connection, which follows neither the caller's USE nor its search_path, so it would take main's table where
// the caller's query takes another's (found by a review: nb_train and nb_eval read main.g after SET
// search_path = 's2').
func (r *registry) ambiguousSource(src string) string {
	if !bareName.MatchString(src) {
		return ""
	}
	name := strings.TrimSpace(src)
	if strings.HasPrefix(name, `"`) {
		name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
	}
	rows, err := r.lookup.Query(queries.SQL("source_holders.sql"), name)
	if err != nil {
		return "" // the source's own resolution reports what is wrong
	}
	defer rows.Close()
	var holders []string
	for rows.Next() {
		var db, schema, table string
		if rows.Scan(&db, &schema, &table) == nil {
			holders = append(holders, queries.Ident(db)+"."+queries.Ident(schema)+"."+queries.Ident(table))
		}
	}
	if len(holders) < 2 {
		return ""
	}
	return fmt.Sprintf("%q names tables or views in more than one schema or database (%s): sqlnb reads the source on its own "+
		"connection, which follows neither USE nor SET search_path, so name the one you mean in full (database.schema.table)",
		name, strings.Join(holders, ", "))
}

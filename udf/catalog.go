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

typedef void *nb_value;
nb_value duckdb_client_context_get_config_option(nb_client_context context, const char *name, int *out_scope);
char *duckdb_get_varchar(nb_value value);
void duckdb_destroy_value(nb_value *value);
void duckdb_free(void *ptr);

// nb_setting returns the text of setting name as the client context sees it (NULL if none); free it with
// duckdb_free.
static char *nb_setting(nb_client_context ctx, const char *name) {
	nb_value v = duckdb_client_context_get_config_option(ctx, name, 0);
	if (!v) return 0;
	char *s = duckdb_get_varchar(v);
	duckdb_destroy_value(&v);
	return s;
}

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
	"strings"
	"unsafe"

	"github.com/sqlnb/sqlnb/internal/sqltext"
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

// bareName returns the name src gives when it is one unqualified identifier, plain or quoted (blanks and
// comments around it aside).
func bareName(src string) (string, bool) {
	var only sqltext.Token
	n := 0
	for t := range Lexer().Significant(src) {
		only = t
		n++
	}
	if n != 1 || only.Name() == "" {
		return "", false
	}
	return only.Name(), true
}

// callerSetting returns setting name as the caller's client context sees it ("" when unset or unreadable).
func callerSetting(cctx mapping.ClientContext, name string) string {
	if cctx.Ptr == nil {
		return ""
	}
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	v := C.nb_setting(C.nb_client_context(cctx.Ptr), n)
	if v == nil {
		return ""
	}
	defer C.duckdb_free(unsafe.Pointer(v))
	return C.GoString(v)
}

// callerSource returns the source src as the caller's query would read it: sqlnb reads sources on its own
// connection, which follows neither the caller's USE nor its SET search_path (both set the caller's
// search_path setting: USE other gives other.main). With a search path set, a bare table name is looked up
// along it, as DuckDB does, and returned in full (database.schema.table); a bare name found nowhere on it is
// an error saying so (sqlnb would have read main's table of that name, or none). Otherwise src is returned as
// it is. Found by a review: after SET search_path = 's2', nb_train and nb_eval read main.g where the caller's
// own query read s2.g.
func (r *registry) callerSource(cctx mapping.ClientContext, src string) (string, error) {
	path := strings.TrimSpace(callerSetting(cctx, "search_path"))
	name, ok := bareName(src)
	if path == "" || !ok {
		return src, nil
	}
	lex := Lexer()
	for _, entry := range lex.SplitList(path, ',') {
		parts := lex.SplitList(entry, '.')
		var db, schema any
		switch len(parts) {
		case 1:
			schema = parts[0]
		case 2:
			db, schema = parts[0], parts[1]
		default:
			continue
		}
		tries := [][2]any{{db, schema}}
		if len(parts) == 1 { // a schema of the default database, else a database (its main schema)
			tries = append(tries, [2]any{parts[0], "main"})
		}
		for _, t := range tries {
			var gotDB, gotSchema, gotName string
			err := r.lookup.QueryRow(queries.SQL("source_lookup_table.sql"), t[0], t[1], name).Scan(&gotDB, &gotSchema, &gotName)
			if err == nil && gotDB != "temp" {
				return queries.Ident(gotDB) + "." + queries.Ident(gotSchema) + "." + queries.Ident(gotName), nil
			}
		}
	}
	return "", fmt.Errorf("source %q: no table or view of that name on your search_path (%s), which sqlnb follows for a bare "+
		"name (it reads sources on its own connection): name it in full (database.schema.table)", src, path)
}

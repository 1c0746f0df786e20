// probe.c: a throw-away DuckDB extension that writes the host's C API function table, one symbol name per
// slot in order, to the file named by PROBE_OUT (gen.sh turns it into ../slots.h). Each slot's pointer is
// resolved to its exported name with dladdr(3); the list ends at the first slot that is not a duckdb_
// function.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct _duckdb_extension_info { void *internal_ptr; } *duckdb_extension_info;
struct duckdb_extension_access {
	void (*set_error)(duckdb_extension_info info, const char *error);
	void *(*get_database)(duckdb_extension_info info);
	const void *(*get_api)(duckdb_extension_info info, const char *version);
};

__attribute__((visibility("default"))) bool probe_init_c_api(duckdb_extension_info info,
                                                             struct duckdb_extension_access *access) {
	void *const *slots = access->get_api(info, getenv("PROBE_API"));
	FILE *f = slots ? fopen(getenv("PROBE_OUT"), "w") : NULL;
	if (!f) {
		access->set_error(info, "probe: no table or no PROBE_OUT");
		return false;
	}
	for (int i = 0; i < 4096; i++) {
		Dl_info di;
		if (!slots[i] || !dladdr(slots[i], &di) || !di.dli_sname || di.dli_saddr != slots[i] ||
		    strncmp(di.dli_sname, "duckdb_", 7) != 0) {
			break;
		}
		fprintf(f, "%s\n", di.dli_sname);
	}
	fclose(f);
	return true;
}

//go:build duckdb_use_static_lib && linux && amd64

// entry.c: the entry point DuckDB calls at LOAD, the copy of the host's function table that trampolines.S
// jumps through, and the pool of connections the extension keeps per database.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "slots.h"
#include "_cgo_export.h"

// The C API version the extension is built for (the footer says the same; make extension). DuckDB 1.5.6
// declared every function of its C API stable at this version, scalar function binds included; DuckDB 2.0
// hands out the same table for it, two functions longer.
#define NB_API_VERSION "v1.5.6"

// Slot numbers by name: NB_SLOT_duckdb_library_version is 7.
#define NB_INDEX(i, name) NB_SLOT_##name = i,
enum { NB_SLOTS(NB_INDEX) };

// nb_api is the copy of the host's function table that trampolines.S jumps through: the first nb_host_slots
// entries are the host's, the rest (functions of a newer DuckDB than the host) nb_missing_slot.
__attribute__((visibility("hidden"))) void *nb_api[NB_SLOT_COUNT];
static size_t nb_host_slots;
static pthread_mutex_t nb_mu = PTHREAD_MUTEX_INITIALIZER;
static nb_kept *nb_pools;        // every pool made in this process (never freed: see entry.h)
__attribute__((visibility("hidden"))) nb_kept *nb_pending_open;

typedef struct _duckdb_extension_info { void *internal_ptr; } *duckdb_extension_info;
struct duckdb_extension_access {
	void (*set_error)(duckdb_extension_info info, const char *error);
	void **(*get_database)(duckdb_extension_info info);
	void *const *(*get_api)(duckdb_extension_info info, const char *version);
};

// The host's functions behind the intercepted names (trampolines.S).
int nb_host_duckdb_connect(void *db, void **out);
void nb_host_duckdb_disconnect(void **con);
int nb_host_duckdb_open_ext(const char *path, void **out, void *config, char **err);
void nb_host_duckdb_close(void **db);
// nb_missing_slot (trampolines.S) stands in for a function the host's table does not have, so that no call
// jumps through NULL: it returns zero in every return register. The functions a 1.5.6 host lacks
// (duckdb_create_timestamp_tz_ns, duckdb_get_timestamp_tz_ns) take a type it does not have, so they are not
// called there; were one called, it would get a NULL duckdb_value or a zero timestamp, not a crash.
void nb_missing_slot(void);

// duckdb_register_static_extensions is not part of the C API: duckdb-go's bindings (2.0) call it from a Go
// init, as the library is loaded, to register the extensions linked into DuckDB's static library. The
// extension links no DuckDB and the host has registered its own, so there is nothing to do.
__attribute__((visibility("hidden"))) int32_t duckdb_register_static_extensions(void) { return 0; }

// sqlnb_init_c_api is found by name: DuckDB calls <file base name>_init_c_api, so the file must be called
// sqlnb.duckdb_extension. It returns true when the functions are registered, else sets the error.
__attribute__((visibility("default"))) bool sqlnb_init_c_api(duckdb_extension_info info,
                                                             struct duckdb_extension_access *access) {
	void *const *api = access->get_api(info, NB_API_VERSION);
	if (!api) {
		return false; // DuckDB has set the error ("Unsupported C CAPI version ...")
	}
	// The table's length is nowhere in it: it follows from the host's version, asked through the table
	// itself (duckdb_library_version has been slot 7 since the first stable C API) and decided in Go
	// (internal/duckdbline). A DuckDB 1.5.6 host hands over 546 slots, 2.0 548: copying more than the host
	// has would read past its table.
	const char *(*library_version)(void) = (const char *(*)(void))api[NB_SLOT_duckdb_library_version];
	char *msg = NULL;
	int n = nbHostSlots((char *)library_version(), &msg);
	if (n <= 0) {
		access->set_error(info, msg ? msg : "sqlnb: out of memory");
		free(msg);
		return false;
	}
	size_t have = (size_t)n < NB_SLOT_COUNT ? (size_t)n : NB_SLOT_COUNT;
	// One process has one DuckDB library, so every LOAD hands out the same table; the lock keeps two
	// concurrent LOADs from tearing the copy.
	pthread_mutex_lock(&nb_mu);
	memcpy(nb_api, api, have * sizeof *nb_api);
	for (size_t i = have; i < NB_SLOT_COUNT; i++) {
		nb_api[i] = (void *)nb_missing_slot;
	}
	nb_host_slots = have;
	pthread_mutex_unlock(&nb_mu);
	void **db = access->get_database(info);
	if (!db || !*db) {
		access->set_error(info, "sqlnb: DuckDB gave no database to register the functions in");
		return false;
	}
	nb_kept *k = calloc(1, sizeof *k);
	if (!k) {
		access->set_error(info, "sqlnb: out of memory");
		return false;
	}
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cond, NULL);
	for (; k->n < NB_KEPT; k->n++) {
		if (nb_host_duckdb_connect(*db, &k->conns[k->n]) != 0) {
			for (int i = 0; i < k->n; i++) {
				nb_host_duckdb_disconnect(&k->conns[i]);
			}
			free(k);
			access->set_error(info, "sqlnb: could not connect to the database");
			return false;
		}
	}
	pthread_mutex_lock(&nb_mu);
	k->next = nb_pools;
	nb_pools = k;
	pthread_mutex_unlock(&nb_mu);
	char *err = nbInit(k);
	if (err) {
		access->set_error(info, err);
		free(err);
		return false;
	}
	return true;
}

static nb_kept *pool_of_db(void *db) {
	pthread_mutex_lock(&nb_mu);
	nb_kept *k = nb_pools;
	while (k && (void *)k != db) {
		k = k->next;
	}
	pthread_mutex_unlock(&nb_mu);
	return k;
}

// duckdb_open_ext: while nbInit makes a duckdb-go connector for a pool, the "database" it opens is the pool.
__attribute__((visibility("hidden"))) int duckdb_open_ext(const char *path, void **out, void *config, char **err) {
	nb_kept *k = __atomic_load_n(&nb_pending_open, __ATOMIC_SEQ_CST);
	if (k) {
		*out = k;
		if (err) {
			*err = NULL;
		}
		return 0;
	}
	return nb_host_duckdb_open_ext(path, out, config, err);
}

// duckdb_close: a pool is never closed (its connections are the only way to the database after LOAD).
__attribute__((visibility("hidden"))) void duckdb_close(void **db) {
	if (db && *db && pool_of_db(*db)) {
		*db = NULL;
		return;
	}
	nb_host_duckdb_close(db);
}

// duckdb_connect on a pool hands out one of its connections, waiting for a free one.
__attribute__((visibility("hidden"))) int duckdb_connect(void *db, void **out) {
	nb_kept *k = pool_of_db(db);
	if (!k) {
		return nb_host_duckdb_connect(db, out);
	}
	pthread_mutex_lock(&k->mu);
	for (;;) {
		for (int i = 0; i < k->n; i++) {
			if (!k->busy[i]) {
				k->busy[i] = true;
				*out = k->conns[i];
				pthread_mutex_unlock(&k->mu);
				return 0;
			}
		}
		pthread_cond_wait(&k->cond, &k->mu);
	}
}

// duckdb_disconnect of a pool's connection gives it back to the pool.
__attribute__((visibility("hidden"))) void duckdb_disconnect(void **con) {
	if (!con || !*con) {
		return;
	}
	pthread_mutex_lock(&nb_mu);
	for (nb_kept *k = nb_pools; k; k = k->next) {
		for (int i = 0; i < k->n; i++) {
			if (k->conns[i] == *con) {
				pthread_mutex_unlock(&nb_mu);
				pthread_mutex_lock(&k->mu);
				k->busy[i] = false;
				pthread_cond_signal(&k->cond);
				pthread_mutex_unlock(&k->mu);
				*con = NULL;
				return;
			}
		}
	}
	pthread_mutex_unlock(&nb_mu);
	nb_host_duckdb_disconnect(con);
}

#define NB_NAME(i, name) #name,
static const char *nb_slot_names[] = {NB_SLOTS(NB_NAME)};

// nb_abi_check reports whether every slot the host handed over is the function slots.h names there (where
// the host exports its symbols) and every other slot the stub that returns zero: "ok: N slots, M named by
// the host" (", K newer ones stubbed" when the host is older than slots.h), or the slots that differ.
char *nb_abi_check(void) {
	size_t cap = 4096, len = 0, bad = 0, unnamed = 0;
	char *out = malloc(cap);
	if (!out) {
		return NULL;
	}
	out[0] = 0;
	pthread_mutex_lock(&nb_mu);
	size_t have = nb_host_slots;
	pthread_mutex_unlock(&nb_mu);
	for (size_t i = 0; i < have; i++) {
		Dl_info di;
		const char *got = NULL;
		if (nb_api[i] && dladdr(nb_api[i], &di) && di.dli_sname && di.dli_saddr == nb_api[i]) {
			got = di.dli_sname;
		}
		if (!got) {
			unnamed++;
			continue;
		}
		if (strcmp(got, nb_slot_names[i]) == 0) {
			continue;
		}
		bad++;
		if (len + 256 < cap) {
			len += snprintf(out + len, cap - len, "slot %zu: declared %s, host has %s; ", i, nb_slot_names[i], got);
		}
	}
	for (size_t i = have; i < NB_SLOT_COUNT; i++) {
		if (nb_api[i] == (void *)nb_missing_slot && ((intptr_t(*)(void))nb_api[i])() == 0) {
			continue;
		}
		bad++;
		if (len + 256 < cap) {
			len += snprintf(out + len, cap - len, "slot %zu: %s, not in the host, is not the stub; ", i, nb_slot_names[i]);
		}
	}
	if (bad == 0) {
		len = snprintf(out, cap, "ok: %zu slots, %zu named by the host", have, have - unnamed);
		if (have < NB_SLOT_COUNT) {
			snprintf(out + len, cap - len, ", %zu newer ones stubbed", (size_t)NB_SLOT_COUNT - have);
		}
	}
	return out;
}

// guard.cc: DuckDB C API calls that allocate, wrapped so that a C++ exception DuckDB throws in them (out of
// memory under memory_limit, above all) becomes an error code and message instead of crossing into Go's
// frames, where nothing can catch it and the process aborts (std::terminate, SIGABRT) — the user's DuckDB
// session with it. guard.go calls these and turns a failure into an error of the SQL function.
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <exception>

extern "C" {
// DuckDB's own declarations (duckdb.h), with its handle types as void *: the extension build links no
// DuckDB, so the names resolve to the host's functions as every other call does (extension/trampolines.S).
int duckdb_list_vector_reserve(void *vector, uint64_t required_capacity);
void duckdb_vector_assign_string_element_len(void *vector, uint64_t index, const char *str, uint64_t str_len);
void duckdb_vector_ensure_validity_writable(void *vector);

// nb_caught sets *msg to a malloc'ed copy of what (the caller frees it) and returns -1.
static int nb_caught(char **msg, const char *what) {
	*msg = strdup(what);
	return -1;
}

// Each returns 0 on success, -1 with the exception's message in *msg (malloc'ed: free it) where DuckDB threw,
// and nb_list_vector_reserve 1 where DuckDB returned an error state. Nothing is allocated on success.
int nb_list_vector_reserve(void *vector, uint64_t n, char **msg) {
	try {
		return duckdb_list_vector_reserve(vector, n) == 0 ? 0 : 1;
	} catch (const std::exception &e) {
		return nb_caught(msg, e.what());
	} catch (...) {
		return nb_caught(msg, "an unknown C++ exception");
	}
}

int nb_vector_assign_string(void *vector, uint64_t index, const char *str, uint64_t len, char **msg) {
	try {
		duckdb_vector_assign_string_element_len(vector, index, str, len);
		return 0;
	} catch (const std::exception &e) {
		return nb_caught(msg, e.what());
	} catch (...) {
		return nb_caught(msg, "an unknown C++ exception");
	}
}

int nb_vector_ensure_validity_writable(void *vector, char **msg) {
	try {
		duckdb_vector_ensure_validity_writable(vector);
		return 0;
	} catch (const std::exception &e) {
		return nb_caught(msg, e.what());
	} catch (...) {
		return nb_caught(msg, "an unknown C++ exception");
	}
}
}

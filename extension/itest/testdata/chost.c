// chost: a plain DuckDB C API host (no sqlnb code), linked against DuckDB's own libduckdb.so or, built with
// -DCHOST_STATIC_EXTENSIONS, DuckDB's static library. It opens a database with allow_unsigned_extensions and
// runs each argument as one statement. For each it prints "== N", then "error: <message>" or one line per
// row, values tab-separated, NULL as \N, a nested value as ?.
// Usage: chost DBPATH SQL...
#include <stdio.h>
#include <string.h>
#include <duckdb.h>

#ifdef CHOST_STATIC_EXTENSIONS
// DuckDB 2.0's static library registers the extensions linked into it (core_functions, parquet, json, ...)
// only when asked: static_extension_loader.c, shipped with the library, defines this.
int32_t duckdb_register_static_extensions(void);
#endif

static void oneline(const char *s) {
	for (; *s; s++) {
		putchar(*s == '\n' ? ' ' : *s);
	}
	putchar('\n');
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: chost DBPATH SQL...\n");
		return 2;
	}
	duckdb_config config;
	duckdb_database db;
	duckdb_connection con;
	char *err = NULL;
#ifdef CHOST_STATIC_EXTENSIONS
	if (duckdb_register_static_extensions() != 0) {
		fprintf(stderr, "chost: registering the static extensions failed\n");
		return 1;
	}
#endif
	if (duckdb_create_config(&config) != DuckDBSuccess ||
	    duckdb_set_config(config, "allow_unsigned_extensions", "true") != DuckDBSuccess) {
		fprintf(stderr, "chost: config failed\n");
		return 1;
	}
	if (duckdb_open_ext(argv[1], &db, config, &err) != DuckDBSuccess) {
		fprintf(stderr, "chost: open %s: %s\n", argv[1], err ? err : "?");
		return 1;
	}
	duckdb_destroy_config(&config);
	if (duckdb_connect(db, &con) != DuckDBSuccess) {
		fprintf(stderr, "chost: connect failed\n");
		return 1;
	}
#ifdef CHOST_SETUP
	CHOST_SETUP(db, con); // bindprobe.c registers its functions here
#endif
	for (int i = 2; i < argc; i++) {
		duckdb_result res;
		printf("== %d\n", i - 2);
		if (duckdb_query(con, argv[i], &res) != DuckDBSuccess) {
			printf("error: ");
			oneline(duckdb_result_error(&res));
		} else {
			idx_t rows = duckdb_row_count(&res), cols = duckdb_column_count(&res);
			for (idx_t r = 0; r < rows; r++) {
				for (idx_t c = 0; c < cols; c++) {
					if (c) {
						putchar('\t');
					}
					if (duckdb_value_is_null(&res, c, r)) {
						fputs("\\N", stdout);
					} else {
						// The result API renders scalars only: a LIST or STRUCT value (nb_train's warnings)
						// comes back NULL and prints as ?. Queries that compare give VARCHAR.
						char *v = duckdb_value_varchar(&res, c, r);
						fputs(v ? v : "?", stdout);
						duckdb_free(v);
					}
				}
				putchar('\n');
			}
		}
		duckdb_destroy_result(&res);
		fflush(stdout);
	}
	duckdb_disconnect(&con);
	duckdb_close(&db);
	return 0;
}

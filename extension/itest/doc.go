// Package itest holds the integration tests of the loadable extension (build tag integration, run by
// `make test-integration`): the one file build/sqlnb.duckdb_extension, built on the 2.0 line, loads in
// stock DuckDB clients of both lines — @duckdb/node-api 1.5.6, a C program on DuckDB's own libduckdb.so
// 1.5.6, Go programs on duckdb-go 1.5.6 and 2.0 (extension/host), a C program on DuckDB 2.0's static
// library, and the test process itself — trains from SQL, scores models the sqlnb binary trained and
// models with INTEGER, BOOLEAN and VARCHAR labels, and gives every number and error message the binary
// gives; DuckDB's own functions work afterwards. Node-api 1.5.5 and wrong footers are refused by DuckDB, a
// host the extension cannot run in by the extension; close and reopen, concurrent connections, panics and
// out-of-memory are checked in node-api. BenchmarkExtension (make bench-extension) compares the hosts'
// speed with the binary's.
package itest

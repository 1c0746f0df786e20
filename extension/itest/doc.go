// Package itest holds the integration tests of the loadable extension (build tag integration, run by
// `make test-integration`): stock DuckDB clients (@duckdb/node-api 1.5.6 and 1.5.5, a C program on DuckDB's
// own libduckdb.so) load build/sqlnb.duckdb_extension, score models the sqlnb binary trained and compare
// every number and error message with the binary's, train from SQL, close and reopen the database; wrong
// footers are refused.
package itest

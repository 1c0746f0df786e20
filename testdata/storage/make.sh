#!/usr/bin/env bash
# Writes duckdb20.duckdb.gz: a database file in DuckDB 2.0's own storage format (storage_version v2.0.0,
# which DuckDB 1.5 cannot read), holding the table votes (testdata/housevotes84/train.csv) and no model.
# Usage: B=/path/to/sqlnb bash make.sh, with a sqlnb built on DuckDB 2.0 (make build).
set -euo pipefail
cd "$(dirname "$0")"
B=${B:?set B to a sqlnb binary built on DuckDB 2.0}
rm -f duckdb20.duckdb duckdb20.duckdb.wal duckdb20.duckdb.gz
$B --db duckdb20.duckdb --storage-version v2.0.0 sql -c "
CREATE TABLE votes AS SELECT * FROM '../housevotes84/train.csv';
CHECKPOINT;
SELECT tags['storage_version'] AS storage_version, (SELECT count(*) FROM votes) AS n FROM duckdb_databases() WHERE database_name = current_database()"
gzip -9 duckdb20.duckdb

-- Sets DuckDB's memory limit for the whole database instance (sorts, aggregates and temporary tables spill
-- to temp_directory beyond it). Parameter $1: the limit, as DuckDB reads it (512MB, 2GB, 1.5GiB).
SET GLOBAL memory_limit = $1

-- Sets the directory where DuckDB spills data beyond its memory limit, for the whole database instance.
-- Parameter $1: the directory (created by DuckDB when it first spills).
SET GLOBAL temp_directory = $1

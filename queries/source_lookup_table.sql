-- Finds a table or view by database, schema and name for a training or scoring source, as DuckDB's search
-- path would: without a database, the connection's temporary objects first, then the current database.
-- Parameters: $1 database name (NULL: temp or the current database), $2 schema name (NULL: any, the current
-- schema first, then main), $3 table or view name.
-- Returns the database (NULL for the current one, whose objects need no database in their name), schema
-- and name.
SELECT CASE WHEN database_name <> current_database() THEN database_name END, schema_name, table_name FROM (
    SELECT schema_name, table_name, database_name FROM duckdb_tables()
    UNION ALL
    SELECT schema_name, view_name, database_name FROM duckdb_views() WHERE NOT internal
) WHERE ($1 IS NULL AND database_name IN ('temp', current_database()) OR database_name = $1)
    AND ($2 IS NULL OR schema_name = $2) AND table_name = $3
ORDER BY database_name = 'temp' DESC, schema_name = current_schema() DESC, schema_name = 'main' DESC, schema_name
LIMIT 1

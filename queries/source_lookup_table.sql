-- Finds a table or view by database, schema and name for a training or scoring source, as DuckDB's search
-- path would: without a database, the connection's temporary objects first, then the current database.
-- Names match without regard to case, as DuckDB's identifiers do (it allows no two tables differing only in
-- case).
-- Parameters: $1 database name (NULL: temp or the current database), $2 schema name (NULL: any, the current
-- schema first, then main), $3 table or view name.
SELECT database_name, schema_name, table_name FROM (
    SELECT schema_name, table_name, database_name FROM duckdb_tables()
    UNION ALL
    SELECT schema_name, view_name, database_name FROM duckdb_views() WHERE NOT internal
) WHERE ($1 IS NULL AND database_name IN ('temp', current_database()) OR lower(database_name) = lower($1))
    AND ($2 IS NULL OR lower(schema_name) = lower($2)) AND lower(table_name) = lower($3)
ORDER BY database_name = 'temp' DESC, schema_name = current_schema() DESC, schema_name = 'main' DESC, schema_name,
    table_name = $3 DESC
LIMIT 1

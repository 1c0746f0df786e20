-- Finds a table or view by schema and name for a training or scoring source.
-- Parameters: $1 schema name (NULL: any), $2 table or view name.
SELECT schema_name, table_name FROM (
    SELECT schema_name, table_name, database_name FROM duckdb_tables()
    UNION ALL
    SELECT schema_name, view_name, database_name FROM duckdb_views() WHERE NOT internal
) WHERE ($1 IS NULL OR schema_name = $1) AND table_name = $2 AND database_name = current_database()
ORDER BY schema_name = current_schema() DESC, schema_name
LIMIT 1

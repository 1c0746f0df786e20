-- What an object of the main schema named $1 is (table, view or macro), its name as stored and its comment:
-- the objects sqlnb export --persist creates carry sqlnb's comment. Names match without regard to case, as
-- DuckDB's identifiers do (an export of model "M" would meet model "m"'s). Parameters: $1 object name.
SELECT kind, name, comment FROM (
    SELECT 'table' AS kind, table_name AS name, comment FROM duckdb_tables()
    WHERE database_name = current_database() AND schema_name = 'main' AND lower(table_name) = lower($1)
    UNION ALL
    SELECT 'view', view_name, comment FROM duckdb_views()
    WHERE database_name = current_database() AND schema_name = 'main' AND lower(view_name) = lower($1)
    UNION ALL
    SELECT 'macro', function_name, comment FROM duckdb_functions()
    WHERE database_name = current_database() AND schema_name = 'main' AND lower(function_name) = lower($1)
        AND function_type IN ('macro', 'table_macro')
) LIMIT 1

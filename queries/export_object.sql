-- What an object of the main schema named $1 is (table, view or macro) and its comment: the objects sqlnb
-- export --persist creates carry sqlnb's comment. Parameters: $1 object name.
SELECT kind, comment FROM (
    SELECT 'table' AS kind, comment FROM duckdb_tables()
    WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1
    UNION ALL
    SELECT 'view', comment FROM duckdb_views()
    WHERE database_name = current_database() AND schema_name = 'main' AND view_name = $1
    UNION ALL
    SELECT 'macro', comment FROM duckdb_functions()
    WHERE database_name = current_database() AND schema_name = 'main' AND function_name = $1 AND function_type IN ('macro', 'table_macro')
) LIMIT 1

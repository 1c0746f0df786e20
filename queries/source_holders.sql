-- The schemas and databases holding a table or view of a source's bare name (temporary objects left out:
-- sqlnb's connection has none of the caller's; nor schema nb, the model store), for the check that such a name is
-- not ambiguous.
-- Parameters: $1 the table or view name (matched without regard to case, as DuckDB's identifiers); the rows give
-- each holder's database, schema and the name as stored.
SELECT DISTINCT database_name, schema_name, name FROM (
    SELECT database_name, schema_name, table_name AS name FROM duckdb_tables()
    UNION ALL
    SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal
) WHERE database_name <> 'temp' AND schema_name <> 'nb' AND lower(name) = lower($1)
ORDER BY database_name, schema_name, name

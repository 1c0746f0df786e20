-- The model store's format: 1 when nb.models lacks the columns format 2 added, 2 when it lacks those of
-- format 3, else NULL (current). No parameters.
SELECT CASE WHEN count(*) FILTER (WHERE column_name = 'eps') = 0 THEN 1
            WHEN count(*) FILTER (WHERE column_name = 'grad_norm') = 0 THEN 2 END
FROM duckdb_columns() WHERE schema_name = 'nb' AND table_name = 'models'

-- The model store's format: NULL (current) when nb.models has the params column of format 5; else 1 when it
-- lacks the columns format 2 added, 2 when it lacks those of format 3, 3 when it lacks one of format 4's
-- (semi-supervised summary, group_by), else 4 (the hyperparameters as a column each). No parameters.
SELECT CASE WHEN count(*) FILTER (WHERE column_name = 'params') > 0 THEN NULL
            WHEN count(*) FILTER (WHERE column_name = 'eps') = 0 THEN 1
            WHEN count(*) FILTER (WHERE column_name = 'grad_norm') = 0 THEN 2
            WHEN count(*) FILTER (WHERE column_name IN ('log_likelihood', 'group_by')) < 2 THEN 3
            ELSE 4 END
FROM duckdb_columns() WHERE schema_name = 'nb' AND table_name = 'models'

-- Whether nb.models of the current database exists but is not sqlnb's model store (a user's view, or a
-- table in a schema of that name that lacks one of the columns every format of the store has). No
-- parameters.
SELECT (count(*) > 0 AND count(*) FILTER (WHERE column_name IN ('name', 'label', 'label_type', 'source', 'n_rows')) < 5)
    OR EXISTS (SELECT 1 FROM duckdb_views()
               WHERE database_name = current_database() AND schema_name = 'nb' AND view_name = 'models')
FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'nb' AND table_name = 'models'

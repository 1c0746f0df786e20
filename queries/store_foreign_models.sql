-- Whether nb.models exists but is not sqlnb's model store (a user's table or view in a schema of that
-- name): it lacks one of the columns every format of the store has. No parameters.
SELECT count(*) > 0 AND count(*) FILTER (WHERE column_name IN ('name', 'label', 'label_type', 'source', 'n_rows')) < 5
FROM duckdb_columns() WHERE schema_name = 'nb' AND table_name = 'models'

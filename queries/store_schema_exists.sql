-- Whether the model store exists in this database. No parameters.
SELECT count(*) > 0 FROM duckdb_tables() WHERE schema_name = 'nb' AND table_name = 'models' AND NOT temporary

-- The name and SQL of every user view (predict's check that --output is no file --from reads). No parameters.
SELECT view_name, sql FROM duckdb_views() WHERE NOT internal

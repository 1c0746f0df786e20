-- function_exists: how many functions of the catalog have the name $1 (0: not registered).
SELECT count(*) FROM duckdb_functions() WHERE function_name = $1

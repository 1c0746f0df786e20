-- DuckDB's name of a type text that type_parse.sql showed to be a type alone ({{.Type}}: that text).
SELECT typeof(CAST(NULL AS {{.Type}}))

{{- /*
type_name: DuckDB's name of a type text that type_parse.sql showed to be a type alone.
Data (queries.TypeName): .Type, that text. No parameters.
*/ -}}
SELECT typeof(CAST(NULL AS {{.Type}}))

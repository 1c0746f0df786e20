{{- /*
source_explain: DuckDB's plan of reading a whole source, as JSON (explain_key, explain_value), whose
operators state their estimated cardinality; nothing is read but metadata. Data (queries.Source): .From (the source,
binding its own parameters).
*/ -}}
EXPLAIN (FORMAT json) SELECT * FROM {{.From}}

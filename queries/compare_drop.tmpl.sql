{{- /*
compare_drop: drops compare_split's temporary table. Data (queries.TableName): .Table.
*/ -}}
DROP TABLE IF EXISTS {{ident .Table}}

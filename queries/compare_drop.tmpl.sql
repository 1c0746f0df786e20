{{- /*
compare_drop: drops compare_split's temporary table. Data: .Table.
*/ -}}
DROP TABLE IF EXISTS {{ident .Table}}

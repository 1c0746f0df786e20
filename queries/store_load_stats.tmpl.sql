{{- /*
store_load_stats: one model's rows of nb.<name>, its own (group_id 0) and its groups', by group then in
insertion order. Data (queries.StatsTable): .Name, .Columns. Parameters: $1 model name.
*/ -}}
SELECT group_id{{range $i, $c := .Columns}}, {{ident $c.Name}}{{end}}
FROM nb.{{ident .Name}}
WHERE model = $1
ORDER BY group_id, rowid

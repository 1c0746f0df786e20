{{- /*
store_load_stats: one model's rows of nb.<name>, in insertion order. Data: .Name, .Columns.
Parameters: $1 model name.
*/ -}}
SELECT {{range $i, $c := .Columns}}{{if $i}}, {{end}}{{ident $c.Name}}{{end}}
FROM nb.{{ident .Name}}
WHERE model = $1
ORDER BY rowid

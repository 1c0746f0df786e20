{{- /*
store_insert_stats: inserts one model's rows of nb.<name> from parallel lists, one per column.
Data: .Name, .Columns. Parameters: $1 model, then one list per column in order.
*/ -}}
INSERT INTO nb.{{ident .Name}} (model{{range .Columns}}, {{ident .Name}}{{end}})
SELECT $1{{range $i, $c := .Columns}}, unnest(${{add $i 2}}::{{$c.Type}}[]){{end}}

{{- /*
store_insert_stats: inserts one model's (or one group's) rows of nb.<name> from parallel lists, one per column.
Data: .Name, .Columns. Parameters: $1 model, $2 group id (0: the model itself), then one list per column in order.
*/ -}}
INSERT INTO nb.{{ident .Name}} (model, group_id{{range .Columns}}, {{ident .Name}}{{end}})
SELECT $1, $2{{range $i, $c := .Columns}}, unnest(${{add $i 3}}::{{$c.Type}}[]){{end}}

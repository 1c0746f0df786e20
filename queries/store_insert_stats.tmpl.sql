{{- /*
store_insert_stats: inserts one model's (or one group's) rows of nb.<name> from parallel lists, one per column.
Data (queries.StatsTable): .Name, .Columns. Parameters: $1 model, $2 the rows' group ids (0: the model itself), then one list per
column in order.
*/ -}}
INSERT INTO nb.{{ident .Name}} (model, group_id{{range .Columns}}, {{ident .Name}}{{end}})
SELECT $1, unnest($2::BIGINT[]){{range $i, $c := .Columns}}, unnest(${{add $i 3}}::{{$c.Type}}[]){{end}}

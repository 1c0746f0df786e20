{{- /*
train_groups: the distinct groups of a per-group model's training source: each group's values (as text; NULL
stays NULL), ordered, and its id — the expression .ID (a hash of the group columns over the source row __sqlnb_row),
which the statistics scans then group by in place of a fold. sqlnb checks that no two groups share an id.
The distinct values are found first, in their own types (cheap), and only they are cast and hashed.
Data (queries.Groups): .From, .By (group column names), .ID. No parameters of its own.
*/ -}}
SELECT {{range $i, $b := .By}}CAST(__sqlnb_row.{{ident $b}} AS VARCHAR) AS k{{$i}}, {{end}}{{.ID}} AS id
FROM (SELECT DISTINCT {{range $i, $b := .By}}{{if $i}}, {{end}}__sqlnb_row.{{ident $b}}{{end}} FROM {{.From}} __sqlnb_row) __sqlnb_row
ORDER BY ALL

{{- /*
train_profile: the checks before training, on the first rows of the source: how many rows have a label and
how many distinct labels they hold, then, for each column of .Columns, how many rows have a value and how
many distinct values they hold. Data (queries.Profile): .From (with bound parameters), .Label, .Columns, .Limit (the
placeholder of the parameter that holds the number of rows to read).
*/ -}}
WITH head AS (SELECT * FROM {{.From}} __sqlnb_row LIMIT {{.Limit}})
SELECT count({{ident .Label}}), count(DISTINCT {{ident .Label}})
    {{- range .Columns}}, count({{ident .}}), count(DISTINCT {{ident .}}){{end}}
FROM head

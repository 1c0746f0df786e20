{{- /*
train_classes: per (fold,) class the number of rows and, with a weight column, the weights (count, minimum,
sum), and the rows with a NULL label: the class scan of models whose families' scans do not give classes
(text). Data (queries.Train): .From, .Label, .Weight (may be empty), .Fold. No parameters of its own.
*/ -}}
WITH src AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    FROM {{.From}} __sqlnb_row
)
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, count(*) AS n
    {{- if .Weight}}, count(w) AS n_weight, min(w) AS min_weight, fsum(w) AS weight{{end}}
FROM src
GROUP BY {{if .Fold}}f, {{end}}l
ORDER BY l NULLS LAST{{if .Fold}}, f{{end}}

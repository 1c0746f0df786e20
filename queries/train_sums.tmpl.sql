{{- /*
train_sums: per (fold,) class the (weighted) sum of every count column (multinomial and complement
features) in one GROUP BY scan, with each column's minimum and non-finite count to reject negative, NaN
and infinite counts. NULL counts are left out (they count as 0).
Data (queries.Features): .From, .Label, .Weight (may be empty), .Fold, .Features (.Name). No parameters of its own.
*/ -}}
WITH src AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    {{- range $i, $f := .Features}},
        CAST({{ident $f.Name}} AS DOUBLE) AS x{{$i}}
    {{- end}}
    FROM {{.From}} __sqlnb_row
)
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, count(*) AS n
    {{- if .Weight}}, count(w) AS n_weight, min(w) AS min_weight, fsum(w) AS weight{{end}}
    {{- range $i, $f := .Features}},
    fsum({{if $.Weight}}w * {{end}}x{{$i}}), min(x{{$i}}), count(*) FILTER (WHERE NOT isfinite(x{{$i}}))
    {{- end}}
FROM src
GROUP BY {{if .Fold}}f, {{end}}l
ORDER BY l NULLS LAST{{if .Fold}}, f{{end}}

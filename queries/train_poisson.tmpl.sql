{{- /*
train_poisson: per (fold,) class the statistics of every Poisson feature over its non-NULL values in one
GROUP BY scan: count, mean (Kahan-summed favg), minimum and the number of values that are not whole finite
numbers (so training can reject bad counts by column); with a weight column also Σ w and Σ w x.
Data (queries.Features): .From, .Label, .Weight (may be empty), .Fold, .Features (.Name). No parameters of their own.
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
    count(x{{$i}}), favg(x{{$i}}) FILTER (WHERE isfinite(x{{$i}})), min(x{{$i}}), count(*) FILTER (WHERE NOT isfinite(x{{$i}}) OR x{{$i}} <> floor(x{{$i}}))
    {{- if $.Weight}}, fsum(w) FILTER (WHERE x{{$i}} IS NOT NULL), fsum(w * x{{$i}}) FILTER (WHERE isfinite(x{{$i}})){{end}}
    {{- end}}
FROM src
GROUP BY {{if .Fold}}f, {{end}}l
ORDER BY l NULLS LAST{{if .Fold}}, f{{end}}

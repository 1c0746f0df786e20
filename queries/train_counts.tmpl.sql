{{- /*
train_counts: counts (and weight sums) of every value of every categorical or Bernoulli feature per class,
in one scan: GROUPING SETS (label), (label, v0), (label, v1), .... The (label) set gives the class counts;
GROUPING(vi) = 0 marks the rows of feature i, where a NULL value is a real NULL (not counted in training).
Rows come ordered by feature, value, then class (the (label) set last), so the stored order is deterministic.
Bernoulli features over numbers are binarized by sqlnb's present rule over a bound threshold (.Expr, built
from Ident and a parameter $n; else the column). With .Fold (an SQL expression over the source row __sqlnb_row) every
set is also grouped by fold.
Data (queries.Counts): .From, .Label, .Weight (may be empty), .Fold, .Features (.Name, .Expr).
*/ -}}
WITH src AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    {{- range $i, $f := .Features}},
        {{$f.Expr}} AS v{{$i}}
    {{- end}}
    FROM {{.From}} __sqlnb_row
)
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class
    {{- range $i, $f := .Features}}, GROUPING(v{{$i}}) AS g{{$i}}, CAST(v{{$i}} AS VARCHAR) AS v{{$i}}{{end}},
    count(*) AS n{{if .Weight}}, fsum(w) AS weight, count(w) AS n_weight, min(w) AS min_weight{{end}}
FROM src
GROUP BY GROUPING SETS (({{if .Fold}}f, {{end}}l){{range $i, $f := .Features}}, ({{if $.Fold}}f, {{end}}l, v{{$i}}){{end}})
ORDER BY {{range $i, $f := .Features}}g{{$i}}, {{end}}{{range $i, $f := .Features}}v{{$i}}, {{end}}l NULLS LAST{{if .Fold}}, f{{end}}

{{- /*
train_logistic_describe: the first pass of a logistic regression fit. Per class, over the rows whose every
feature is present (not NULL; numbers not NaN), the count and weight, and per number feature its least
and greatest value (finite; constant when equal; the fit standardises the numbers by the mean and spread
of its in-memory sample of rows, train_logistic_sample, which costs no pass) and per categorical feature
its distinct levels. Rows with a label but a missing feature form their own groups (inc true), counted
and left out (a NaN enters the aggregates as NULL); the NULL-label rows one group.
Data (queries.LogisticDescribe): .From, .Label, .Weight (may be empty), .Features (.Name, .Numeric). No parameters of its own; the
FROM clause may carry bound ones.
*/ -}}
WITH s AS NOT MATERIALIZED (
    SELECT {{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    {{- range $i, $f := .Features}},
        {{if $f.Numeric}}nullif(CAST({{ident $f.Name}} AS DOUBLE), 'NaN'::DOUBLE){{else}}CAST({{ident $f.Name}} AS VARCHAR){{end}} AS x{{$i}}
    {{- end}},
        {{ident .Label}} IS NOT NULL AND NOT ({{range $i, $f := .Features}}{{if $i}} AND {{end}}{{ident $f.Name}} IS NOT NULL{{if $f.Numeric}} AND NOT isnan(CAST({{ident $f.Name}} AS DOUBLE)){{end}}{{end}}) AS inc
    FROM {{.From}} __sqlnb_row
)
SELECT CAST(l AS VARCHAR) AS class, inc, count(*) AS n
    {{- if .Weight}}, count(w) AS n_weight, min(w) AS min_weight, fsum(w) AS weight{{end}}
    {{- range $i, $f := .Features}},
    {{if $f.Numeric}}min(x{{$i}}), max(x{{$i}}){{else}}list(DISTINCT x{{$i}} ORDER BY x{{$i}}){{end}}
    {{- end}}
FROM s
GROUP BY l, inc
ORDER BY l NULLS LAST, inc

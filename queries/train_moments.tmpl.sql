{{- /*
train_moments: per-class count, mean (Kahan-summed favg, exact for large offsets) and population variance
(Welford's var_pop) of every Gaussian feature in one wide GROUP BY scan. Rows with a NULL label form their
own group (reported as skipped), with no values: a NaN or ±Inf there (a row training skips) stops nothing. With a weight column, a second scan over the same source adds the weighted
sum and the weighted first and second moments about the unweighted class mean (a shift that keeps them
exact), from which the weighted mean and M2 follow.
With .Fold (an SQL expression over the source row t), every statistic is computed per (fold, class) in the
same scan, for cross-validation.
Data: .From (FROM clause built from Ident and bound parameters), .Label, .Weight (may be empty), .Fold,
.Features (.Name, .Cast: convert to DOUBLE, .NaNToNull: read NaN as NULL). No parameters of its own; the
FROM clause may carry bound ones.
*/ -}}
WITH src AS {{if .Weight}}NOT MATERIALIZED {{end}}(
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    {{- range $i, $f := .Features}},
        CASE WHEN {{ident $.Label}} IS NULL THEN NULL ELSE {{if $f.NaNToNull}}CASE WHEN isnan({{ident $f.Name}}) THEN NULL ELSE {{ident $f.Name}} END{{else if $f.Cast}}CAST({{ident $f.Name}} AS DOUBLE){{else}}{{ident $f.Name}}{{end}} END AS x{{$i}}
    {{- end}}
    FROM {{.From}} t
){{if .Weight}}, shift AS (
    SELECT {{if .Fold}}f, {{end}}l{{range $i, $f := .Features}}, favg(x{{$i}}) AS s{{$i}}{{end}} FROM src GROUP BY ALL
){{end}}
SELECT {{if .Fold}}src.f AS fold, {{end}}CAST(src.l AS VARCHAR) AS class, count(*) AS n
    {{- if .Weight}}, count(w) AS n_weight, min(w) AS min_weight, fsum(w) AS weight{{end}}
    {{- range $i, $f := .Features}},
    count(x{{$i}}), favg(x{{$i}}), var_pop(x{{$i}})
    {{- if $.Weight}}, fsum(w) FILTER (WHERE x{{$i}} IS NOT NULL), fsum(w * (x{{$i}} - s{{$i}})), fsum(w * (x{{$i}} - s{{$i}}) * (x{{$i}} - s{{$i}})){{end}}
    {{- end}}
FROM src{{if .Weight}} LEFT JOIN shift ON src.l IS NOT DISTINCT FROM shift.l{{if .Fold}} AND src.f = shift.f{{end}}{{end}}
GROUP BY {{if .Fold}}src.f, {{end}}src.l
ORDER BY src.l NULLS LAST{{if .Fold}}, src.f{{end}}

{{- /*
train_moments: per-class count, mean (Kahan-summed favg, exact for large offsets) and population variance
(Welford's var_pop) of every Gaussian feature in one wide GROUP BY scan. Rows with a NULL label form their
own group (reported as skipped), with no values: a NaN or ±Inf there (a row training skips) stops nothing.
With a weight column, a second scan over the same source adds the weighted sum and the weighted first and
second moments about the class's weighted mean s from a first scan (a shift that keeps them exact), and s,
from which the weighted mean and M2 follow.
With .Shift (unweighted only), the variance is the same shifted sum's with weight 1: count(x), s + Σ(x-s)/n
and (Σ(x-s)² - (Σ(x-s))²/n)/n about the class mean s (Kahan-summed) from a first scan. Welford's var_pop
loses about |mean|/σ ulps (1e-6 of the variance of values near 1e10 that vary by 1); sqlnb runs this
second form only for the features where that matters.
(The weighted shift was the unweighted mean: rows of weight 0 far from the others moved it, and
Σ w(x-s)² - (Σ w(x-s))²/Σ w cancelled.)
With .Fold (an SQL expression over the source row __sqlnb_row), every statistic is computed per (fold, class) in the
same scan, for cross-validation.
Data (queries.Moments): .From (FROM clause built from Ident and bound parameters), .Label, .Weight (may be empty), .Fold,
.Shift, .Features (.Name, .Cast: convert to DOUBLE, .NaNToNull: read NaN as NULL). No parameters of its own; the
FROM clause may carry bound ones.
*/ -}}
WITH src AS {{if or .Weight .Shift}}NOT MATERIALIZED {{end}}(
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    {{- range $i, $f := .Features}},
        CASE WHEN {{ident $.Label}} IS NULL THEN NULL ELSE {{if $f.NaNToNull}}CASE WHEN isnan({{ident $f.Name}}) THEN NULL ELSE {{ident $f.Name}} END{{else if $f.Cast}}CAST({{ident $f.Name}} AS DOUBLE){{else}}{{ident $f.Name}}{{end}} END AS x{{$i}}
    {{- end}}
    FROM {{.From}} __sqlnb_row
){{if .Weight}}, shift AS (
    SELECT {{if .Fold}}f, {{end}}l{{range $i, $f := .Features}},
        coalesce(fsum(w * x{{$i}}) FILTER (WHERE w > 0) / nullif(fsum(w) FILTER (WHERE w > 0 AND x{{$i}} IS NOT NULL), 0), favg(x{{$i}})) AS s{{$i}}{{end}}
    FROM src GROUP BY ALL
){{else if .Shift}}, shift AS (
    SELECT {{if .Fold}}f, {{end}}l{{range $i, $f := .Features}}, favg(x{{$i}}) AS s{{$i}}{{end}} FROM src GROUP BY ALL
){{end}}
SELECT {{if .Fold}}src.f AS fold, {{end}}CAST(src.l AS VARCHAR) AS class, count(*) AS n
    {{- if .Weight}}, count(w) AS n_weight, min(w) AS min_weight, fsum(w) AS weight{{end}}
    {{- range $i, $f := .Features}},
    {{- if $.Shift}}
    count(x{{$i}}), any_value(s{{$i}}) + fsum(x{{$i}} - s{{$i}}) / count(x{{$i}}),
    (fsum((x{{$i}} - s{{$i}}) * (x{{$i}} - s{{$i}})) - fsum(x{{$i}} - s{{$i}}) * fsum(x{{$i}} - s{{$i}}) / count(x{{$i}})) / count(x{{$i}})
    {{- else}}
    count(x{{$i}}), favg(x{{$i}}), var_pop(x{{$i}})
    {{- end}}
    {{- if $.Weight}}, fsum(w) FILTER (WHERE x{{$i}} IS NOT NULL), fsum(w * (x{{$i}} - s{{$i}})), fsum(w * (x{{$i}} - s{{$i}}) * (x{{$i}} - s{{$i}})), any_value(s{{$i}}){{end}}
    {{- end}}
FROM src{{if or .Weight .Shift}} LEFT JOIN shift ON src.l IS NOT DISTINCT FROM shift.l{{if .Fold}} AND src.f = shift.f{{end}}{{end}}
GROUP BY {{if .Fold}}src.f, {{end}}src.l
ORDER BY src.l NULLS LAST{{if .Fold}}, src.f{{end}}

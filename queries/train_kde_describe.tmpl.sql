{{- /*
train_kde_describe: pass 1 of kernel-density training. Per class, over the finite values of every kde
feature (NULL and NaN are missing; rows with a NULL label form their own group, with no values): the
number of values, least and greatest, the sum of squared deviations about the class mean (two passes:
Kahan-summed favg, then fsum of (x - mean)², the n - 1 variance's numerator as R's var() computes it up
to rounding), the number of infinite values (an error, by column) and the order statistics that R's type-7
quantiles at 0.25 and 0.75 interpolate between: 1-based positions floor and ceiling of 1 + (n - 1)p in
the sorted values.
Data (queries.Features): .From, .Label, .Features (.Name). No parameters of its own; the FROM clause may carry bound ones.
*/ -}}
WITH src AS (
    SELECT {{ident .Label}} AS l
    {{- range $i, $f := .Features}},
        CASE WHEN {{ident $.Label}} IS NULL OR isnan(CAST({{ident $f.Name}} AS DOUBLE)) THEN NULL ELSE CAST({{ident $f.Name}} AS DOUBLE) END AS x{{$i}}
    {{- end}}
    FROM {{.From}} __sqlnb_row
), mean AS (
    SELECT l{{range $i, $f := .Features}}, favg(x{{$i}}) FILTER (WHERE isfinite(x{{$i}})) AS m{{$i}}{{end}}
    FROM src GROUP BY l
), agg AS (
    SELECT src.l, count(*) AS n
    {{- range $i, $f := .Features}},
        count(x{{$i}}) FILTER (WHERE isfinite(x{{$i}})) AS n{{$i}}, min(x{{$i}}) FILTER (WHERE isfinite(x{{$i}})) AS lo{{$i}},
        max(x{{$i}}) FILTER (WHERE isfinite(x{{$i}})) AS hi{{$i}},
        fsum((x{{$i}} - m{{$i}}) * (x{{$i}} - m{{$i}})) FILTER (WHERE isfinite(x{{$i}})) AS ss{{$i}},
        count(*) FILTER (WHERE isinf(x{{$i}})) AS inf{{$i}},
        list_sort(list(x{{$i}}) FILTER (WHERE isfinite(x{{$i}}))) AS s{{$i}}
    {{- end}}
    FROM src JOIN mean ON src.l IS NOT DISTINCT FROM mean.l
    GROUP BY src.l
)
SELECT CAST(l AS VARCHAR) AS class, n
    {{- range $i, $f := .Features}},
    n{{$i}}, lo{{$i}}, hi{{$i}}, ss{{$i}}, inf{{$i}},
    s{{$i}}[CAST(floor(1 + (n{{$i}} - 1) * 0.25) AS BIGINT)], s{{$i}}[CAST(ceil(1 + (n{{$i}} - 1) * 0.25) AS BIGINT)],
    s{{$i}}[CAST(floor(1 + (n{{$i}} - 1) * 0.75) AS BIGINT)], s{{$i}}[CAST(ceil(1 + (n{{$i}} - 1) * 0.75) AS BIGINT)]
    {{- end}}
FROM agg
ORDER BY l NULLS LAST

{{- /*
train_comoments: per class, over the rows whose every feature is present (not NULL, not NaN), the count,
the mean of every feature and the co-moment Σ (x_j - mean_j)(x_k - mean_k) of every pair j ≤ k, for
discriminant analysis, in one GROUP BY scan. Unweighted: favg (Kahan-summed) means and covar_pop
(Welford's update, Chan's merge: exact with large offsets) times the count. The rows with a label but a
missing feature form their own groups (inc true), counted and left out; the NULL-label rows one group.
Without .Missing the scan assumes complete rows (the common case, as fast as the bare GROUP BY): it groups
by class only and adds every feature's count of non-NULL values, which tells the caller whether to run again
with .Missing (a count short of n, or a NaN statistic).
With a weight column, a second scan over the same source gives the class's weighted means s_j (its
unweighted means were moved by rows of weight 0 far from the others, and the sums below cancelled), and the
scan sums
Σ w, Σ w (x_j - s_j) and Σ w (x_j - s_j)(x_k - s_k) about them (a shift that keeps them exact), from which
the weighted mean and co-moment follow. With .Shift (unweighted; sqlnb runs it again when a class mean lies more
than 100 standard deviations from 0, as Welford's update loses about |mean|/σ ulps), the means and
co-moments (over n) come from the same shifted sums with weight 1 about the class means from a first scan. With .Fold (an SQL expression over the source row __sqlnb_row), every
statistic is computed per (fold, class) in the same scan, for cross-validation.
Data (queries.Comoments): .From, .Label, .Weight (may be empty), .Fold, .Missing, .Shift, .Features (names), .Pairs (.J, .K: feature
indexes, J ≤ K). No parameters of its own; the FROM clause may carry bound ones.
*/ -}}
WITH src AS NOT MATERIALIZED (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    {{- range $i, $f := .Features}},
        CAST({{ident $f}} AS DOUBLE) AS x{{$i}}
    {{- end}}
    FROM {{.From}} __sqlnb_row
), s AS NOT MATERIALIZED (
    SELECT *, {{if .Missing}}l IS NOT NULL AND NOT ({{range $i, $f := .Features}}{{if $i}} AND {{end}}x{{$i}} IS NOT NULL AND NOT isnan(x{{$i}}){{end}}){{else}}false{{end}} AS inc
    FROM src
){{if .Weight}}, shift AS (
    SELECT {{if .Fold}}f, {{end}}l{{range $i, $f := .Features}},
        coalesce(fsum(w * x{{$i}}) FILTER (WHERE w > 0) / nullif(fsum(w) FILTER (WHERE w > 0), 0), favg(x{{$i}})) AS s{{$i}}{{end}}
    FROM s WHERE NOT inc GROUP BY ALL
){{else if .Shift}}, shift AS (
    SELECT {{if .Fold}}f, {{end}}l{{range $i, $f := .Features}}, favg(x{{$i}}) AS s{{$i}}{{end}} FROM s WHERE NOT inc GROUP BY ALL
){{end}}
SELECT {{if .Fold}}s.f AS fold, {{end}}CAST(s.l AS VARCHAR) AS class, {{if .Missing}}s.inc{{else}}false{{end}} AS inc, count(*) AS n
    {{- if .Weight}}, count(w) AS n_weight, min(w) AS min_weight, fsum(w) AS weight{{end}}
{{- if .Weight}}
    {{- range $i, $f := .Features}},
    fsum(w * (x{{$i}} - s{{$i}}))
    {{- end}}
    {{- range .Pairs}},
    fsum(w * (x{{.J}} - s{{.J}}) * (x{{.K}} - s{{.K}}))
    {{- end}}
    {{- range $i, $f := .Features}}, any_value(s{{$i}}){{end}}
{{- else if .Shift}}
    {{- range $i, $f := .Features}},
    any_value(s{{$i}}) + fsum(x{{$i}} - s{{$i}}) / count(*)
    {{- end}}
    {{- range .Pairs}},
    (fsum((x{{.J}} - s{{.J}}) * (x{{.K}} - s{{.K}})) - fsum(x{{.J}} - s{{.J}}) * fsum(x{{.K}} - s{{.K}}) / count(*)) / count(*)
    {{- end}}
{{- else}}
    {{- range $i, $f := .Features}},
    favg(x{{$i}})
    {{- end}}
    {{- range .Pairs}},
    covar_pop(x{{.J}}, x{{.K}})
    {{- end}}
{{- end}}
{{- if not .Missing}}{{range $i, $f := .Features}}, count(x{{$i}}){{end}}{{end}}
FROM s{{if or .Weight .Shift}} LEFT JOIN shift ON s.l IS NOT DISTINCT FROM shift.l{{if .Fold}} AND s.f = shift.f{{end}}{{end}}
GROUP BY {{if .Fold}}s.f, {{end}}s.l{{if .Missing}}, s.inc{{end}}
ORDER BY s.l NULLS LAST{{if .Missing}}, s.inc{{end}}{{if .Fold}}, s.f{{end}}

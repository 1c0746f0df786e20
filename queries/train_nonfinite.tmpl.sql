{{- /*
train_nonfinite: per Gaussian feature, how many infinite and NaN values it has and its largest finite
magnitude, run only after var_pop rejected a value (NaN and infinity, or a square that overflows).
Data (queries.Nonfinite): .From, .Label, .Features (.Name). No parameters of its own.
*/ -}}
SELECT {{range $i, $f := .Features}}{{if $i}},
       {{end}}count(*) FILTER (WHERE isinf(CAST({{ident $f.Name}} AS DOUBLE))), count(*) FILTER (WHERE isnan(CAST({{ident $f.Name}} AS DOUBLE))),
       max(abs(CAST({{ident $f.Name}} AS DOUBLE))) FILTER (WHERE isfinite(CAST({{ident $f.Name}} AS DOUBLE))){{end}}
FROM {{.From}} __sqlnb_row
WHERE {{ident .Label}} IS NOT NULL

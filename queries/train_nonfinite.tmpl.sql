{{- /*
train_nonfinite: how many NaN and infinite values each floating-point Gaussian feature has, run only after
var_pop rejected a value. Data: .From, .Label, .Features (.Name). No parameters of its own.
*/ -}}
SELECT {{range $i, $f := .Features}}{{if $i}}, {{end}}count(*) FILTER (WHERE isinf({{ident $f.Name}})), count(*) FILTER (WHERE isnan({{ident $f.Name}})){{end}}
FROM {{.From}} t
WHERE {{ident .Label}} IS NOT NULL

{{- /*
train_logistic_step: one Newton (IRLS) step of a logistic regression fit as one aggregation pass (seed
004), where the Go kernel (train_logistic_pass, nb_logistic_pass) is not registered: at the parameters θ it returns the weighted log-loss L = Σ w (log Σ_c exp z_c - z_y), the number of
rows whose log-loss is ≥ log 2 (when 0, every row has p(y | x) > ½: θ separates the classes), the gradient
X^T (μ - y) and the Hessian X^T S X with S_i = w_i (diag μ_i - μ_i μ_iᵀ).
Class 0 is the reference (z_0 = 0); the free classes c = 1..K-1 have z_c = θ_c0 + Σ_j θ_cj x_j over the
design columns x_j (standardised numbers, category indicators). Only complete rows (every feature present)
with a label take part.
Output columns: loss, unsure; then per free class c and column j (j = 0 the intercept) the gradient
Σ w (μ_c - y_c) x_j; then per class pair c ≤ c' and column pair j ≤ k the Hessian entry
Σ w μ_c (δ_cc' - μ_c') x_j x_k (none when .Pairs is empty: the fit takes its Hessian from its sample).
Data (queries.LogisticStep): .From, .Label, .Weight (may be empty), .Features (.Name, .Numeric: the completeness test), .Cols
(.Expr: each design column over the source row __sqlnb_row, built from Ident and parameters), .Classes (the
parameter of each class label, class 0 first), .Z (per free class: .B the intercept's parameter, .W the
parameter of each column's coefficient), .Free (the free class numbers 1..K-1), .Pairs (.C, .D: class
pairs c ≤ d), .Prods (.J, .K: column pairs 1 ≤ j ≤ k), .Cols1 (column numbers 1..d-1).
Parameters: the source's, then those named in .Cols, .Classes and .Z.
*/ -}}
WITH src AS NOT MATERIALIZED (
    SELECT CAST({{ident .Label}} AS VARCHAR) AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    {{- range $i, $c := .Cols}},
        {{$c.Expr}} AS x{{add $i 1}}
    {{- end}}
    FROM {{.From}} __sqlnb_row
    WHERE {{ident .Label}} IS NOT NULL{{range .Features}} AND {{ident .Name}} IS NOT NULL{{if .Numeric}} AND NOT isnan(CAST({{ident .Name}} AS DOUBLE)){{end}}{{end}}
), z AS (
    SELECT *, CASE l{{range $c, $p := .Classes}} WHEN {{$p}} THEN {{$c}}{{end}} END AS k
        {{- range $c, $z := .Z}},
        {{$z.B}}{{range $j, $w := $z.W}} + {{$w}} * x{{add $j 1}}{{end}} AS z{{add $c 1}}
        {{- end}}
    FROM src
), e AS (
    SELECT *, greatest(0{{range .Free}}, z{{.}}{{end}}) AS zm FROM z
), p AS (
    SELECT *, zm + ln(exp(-zm){{range .Free}} + exp(z{{.}} - zm){{end}}) AS lse,
        CASE k{{range .Free}} WHEN {{.}} THEN z{{.}}{{end}} ELSE 0 END AS zy
    FROM e
), r AS (
    SELECT *{{range .Free}}, exp(z{{.}} - lse) AS mu{{.}}, (k = {{.}})::DOUBLE AS y{{.}}{{end}} FROM p
), q AS (
    SELECT *
        {{- range .Free}}, {{if $.Weight}}w * {{end}}(mu{{.}} - y{{.}}) AS g{{.}}{{end}}
        {{- range .Pairs}}, {{if $.Weight}}w * {{end}}mu{{.C}} * ({{if eq .C .D}}1 - {{else}}-{{end}}mu{{.D}}) AS h{{.C}}_{{.D}}{{end}}
        {{- range .Prods}}, x{{.J}} * x{{.K}} AS p{{.J}}_{{.K}}{{end}}
    FROM r
)
SELECT {{if .Weight}}sum(w * (lse - zy)){{else}}sum(lse - zy){{end}} AS loss,
    count(*) FILTER (WHERE lse - zy >= ln(2){{if .Weight}} AND w > 0{{end}}) AS unsure
    {{- range $c := .Free}},
    sum(g{{$c}}){{range $.Cols1}}, sum(g{{$c}} * x{{.}}){{end}}
    {{- end}}
    {{- range $pr := .Pairs}},
    sum(h{{$pr.C}}_{{$pr.D}}){{range $.Cols1}}, sum(h{{$pr.C}}_{{$pr.D}} * x{{.}}){{end}}{{range $.Prods}}, sum(h{{$pr.C}}_{{$pr.D}} * p{{.J}}_{{.K}}){{end}}
    {{- end}}
FROM q

{{- /*
train_logistic_pass: one pass of a logistic regression fit through sqlnb's Go kernel (seed 004): DuckDB scans
the source, keeps the complete labelled rows, computes the design columns and hands every chunk to
nb_logistic_pass, which adds the log-loss, gradient (and, when the fit asks, Hessian) at the fit's current
parameters into the fit's accumulator (the token names it). The query returns the number of rows passed.
Data: .From, .Label, .Weight (may be empty), .Features (.Name, .Numeric: the completeness test), .Cols
(.Expr: each design column over the source row t), .Classes (the parameter of each class label, class 0
first), .Token (the fit's token as a string literal).
Parameters: the source's, then those named in .Cols and .Classes.
*/ -}}
SELECT count(nb_logistic_pass({{.Token}}, CAST(CASE CAST({{ident .Label}} AS VARCHAR){{range $c, $p := .Classes}} WHEN {{$p}} THEN {{$c}}{{end}} END AS INTEGER)
    {{- if .Weight}}, CAST({{ident .Weight}} AS DOUBLE){{end}}
    {{- range .Cols}},
    CAST({{.Expr}} AS DOUBLE)
    {{- end}}))
FROM {{.From}} t
WHERE {{ident .Label}} IS NOT NULL{{range .Features}} AND {{ident .Name}} IS NOT NULL{{if .Numeric}} AND NOT isnan(CAST({{ident .Name}} AS DOUBLE)){{end}}{{end}}

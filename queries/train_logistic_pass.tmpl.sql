{{- /*
train_logistic_pass: one pass of a logistic regression fit through sqlnb's Go kernel (seed 004): DuckDB scans
the source, keeps the labelled rows whose categories are present, computes the class index and the
design columns (a number feature as its value; a level's indicator) and hands every chunk to
nb_logistic_pass, which leaves out the rows with a missing number (NULL, NaN), standardises the numbers,
and adds the log-loss, gradient (and, when the fit asks, Hessian) at the fit's current
parameters into the fit's accumulator (the token names it). The query returns the number of rows passed.
Data (queries.LogisticPass): .From, .Label, .Weight (may be empty), .Features (.Name, .Numeric: the completeness test), .Cols
(.Raw: each design column over the source row __sqlnb_row, unstandardised), .Classes (the parameter of each class label, class 0
first), .Token (the fit's token as a string literal).
Parameters: the source's, then those named in .Cols' .Raw and .Classes.
*/ -}}
SELECT count(nb_logistic_pass({{.Token}}, CAST(CASE CAST({{ident .Label}} AS VARCHAR){{range $c, $p := .Classes}} WHEN {{$p}} THEN {{$c}}{{end}} END AS INTEGER)
    {{- if .Weight}}, CAST({{ident .Weight}} AS DOUBLE){{end}}
    {{- range .Cols}},
    {{.Raw}}
    {{- end}}))
FROM {{.From}} __sqlnb_row
WHERE {{ident .Label}} IS NOT NULL{{range .Features}}{{if not .Numeric}} AND {{ident .Name}} IS NOT NULL{{end}}{{end}}

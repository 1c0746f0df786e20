{{- /*
train_missing: why a model of complete rows (lda, qda, logistic) could not be trained after rows with a
missing value were left out: per class of the labelled rows, the rows and the complete rows, and per feature
the rows where it is missing (NULL, or NaN for a floating-point column). Read only when training failed.
Data (queries.Missing): .From (the source, binding its own parameters), .Label, .Features (.Name, .Float: NaN counts as
missing).
*/ -}}
SELECT CAST({{ident .Label}} AS VARCHAR) AS class, count(*) AS n,
       count(*) FILTER (WHERE {{range $i, $f := .Features}}{{if $i}} AND {{end}}{{ident $f.Name}} IS NOT NULL{{if $f.Float}} AND NOT isnan({{ident $f.Name}}){{end}}{{end}}) AS complete
{{- range .Features}},
       count(*) FILTER (WHERE {{ident .Name}} IS NULL{{if .Float}} OR isnan({{ident .Name}}){{end}}) AS {{ident (print "missing " .Name)}}
{{- end}}
FROM {{.From}} __sqlnb_row
WHERE {{ident .Label}} IS NOT NULL
GROUP BY ALL
ORDER BY class

{{- /*
predict_select: the rows sqlnb predict writes: the kept source columns (every one without .Columns), the
prediction (nb_predict, cast back to the label column's type with .LabelCast), with .ProbaMap the MAP of
every class's posterior, and with .Posteriors one column per class (.Proba, in the model's class order):
the elements of one nb_predict_proba per row, taken apart by an outer SELECT (a column per nb_proba call
would evaluate the model once per class; DuckDB evaluates the inner column once per row).
Data (queries.Predict): .From (the source, binding its own parameters), .Columns, .Model (the model name as
a string literal), .LabelCast, .Prediction, .ProbaMap, .Posteriors, .Proba (output column names).
*/ -}}
{{if .Posteriors}}SELECT * EXCLUDE ({{ident .Posteriors}}){{range $i, $c := .Proba}}, {{ident $.Posteriors}}[{{add $i 1}}] AS {{ident $c}}{{end}} FROM ({{end -}}
SELECT {{if .Columns}}{{range $i, $c := .Columns}}{{if $i}}, {{end}}__sqlnb_row.{{ident $c}}{{end}}{{else}}__sqlnb_row.*{{end}},
    {{- if .LabelCast}} CAST(nb_predict({{.Model}}, __sqlnb_row) AS {{.LabelCast}}){{else}} nb_predict({{.Model}}, __sqlnb_row){{end}} AS {{ident .Prediction}}
    {{- if .ProbaMap}}, nb_predict_proba({{.Model}}, __sqlnb_row) AS {{ident .ProbaMap}}{{end}}
    {{- if .Posteriors}}, map_values(nb_predict_proba({{.Model}}, __sqlnb_row)) AS {{ident .Posteriors}}{{end}}
FROM {{.From}} __sqlnb_row{{if .Posteriors}}){{end}}

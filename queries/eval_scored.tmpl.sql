{{- /*
eval_scored: the scored rows of an evaluation in a compact form, one per source row with a label and
posteriors, and one (y, yi, yx and every p NULL, scoring nothing) per row with a NULL label, which eval counts: g (the group, the fold; only with .Grouped), yi (the true label's position in the class list;
NULL for a label outside it), yx (the true label as text where yi is NULL) and p1 … pK (the posteriors in
class order; NULL where a row's MAP lacks the class). One DOUBLE per class instead of a MAP: a fraction of
the memory, and the posteriors of a class are a column to sort.
Parameter $1: the class labels (VARCHAR[]) in order; the source binds $2.
Data (queries.EvalScored): .From (the source, binding $2), .Label, .Grouped and .Group (SQL for the group), .Proba (an SQL
expression over the source row __sqlnb_row yielding MAP(VARCHAR, DOUBLE)), .Ordered (every MAP's keys are the class
labels in order, as nb_predict_proba's are: the values are taken by position, else looked up by label),
.Positions (1 … K).
*/ -}}
SELECT {{if .Grouped}}g, {{end}}yi, CASE WHEN yi IS NULL THEN y END AS yx
{{- range .Positions}}, v[{{.}}] AS p{{.}}{{end}}
FROM (
    SELECT {{if .Grouped}}g, {{end}}y, list_position($1::VARCHAR[], y)::USMALLINT AS yi,
{{- if .Ordered}}
           map_values(p) AS v
{{- else}}
           [{{range $i, $c := .Positions}}{{if $i}}, {{end}}p[($1::VARCHAR[])[{{$c}}]]{{end}}] AS v
{{- end}}
    FROM (
        SELECT {{if .Grouped}}({{.Group}})::INTEGER AS g, {{end}}CAST({{ident .Label}} AS VARCHAR) AS y,
               CASE WHEN {{ident .Label}} IS NOT NULL THEN {{.Proba}} END AS p
        FROM {{.From}} __sqlnb_row
    )
    WHERE p IS NOT NULL OR y IS NULL
)

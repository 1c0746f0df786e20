{{- /*
eval_classes: the classes of a scoring expression: the keys of the first labelled row's posteriors.
Data (queries.EvalClasses): .From (the source, binding $1), .Label, .Proba (SQL over the source row __sqlnb_row yielding MAP(VARCHAR, DOUBLE)).
*/ -}}
SELECT map_keys(p) FROM (SELECT {{.Proba}} AS p FROM {{.From}} __sqlnb_row WHERE {{ident .Label}} IS NOT NULL) WHERE p IS NOT NULL LIMIT 1

{{- /*
eval_scored: scores a source once into the temporary table nb_eval_scored(g, rid, y, p, pred): the group
(fold; 0 for a plain evaluation), a row id, the true label as text, the posteriors and the predicted class
(the first class with the largest posterior). Rows with a NULL label are left out.
Data: .From (with bound parameters), .Label, .Model (a quoted literal: scoring functions need a constant
model name), .Group (SQL for the group, "0" for none), .Proba (the scoring expression, by default
nb_predict_proba(model, t)).
*/ -}}
CREATE OR REPLACE TEMPORARY TABLE nb_eval_scored AS
SELECT g, row_number() OVER () AS rid, y, p, map_keys(p)[list_position(map_values(p), list_max(map_values(p)))] AS pred
FROM (
    SELECT {{.Group}} AS g, CAST({{ident .Label}} AS VARCHAR) AS y, {{.Proba}} AS p
    FROM {{.From}} t
    WHERE {{ident .Label}} IS NOT NULL
) WHERE p IS NOT NULL

{{- /*
em_estep: the E-step of semi-supervised training: scores every unlabelled row (nb_em_rows) once with the
current model into the temporary table nb_em_post: the row id, its posteriors (a list in the model's class
order) and its weighted log evidence w log p(x).
Data (queries.EMEStep): .Score (nb_cv_em(set, 0, NULL, t) over the row t). No parameters.
*/ -}}
CREATE OR REPLACE TEMPORARY TABLE nb_em_post AS
SELECT __sqlnb_rid, e.p AS p, __sqlnb_w * e.ll AS ll
FROM (SELECT __sqlnb_rid, __sqlnb_w, {{.Score}} AS e FROM nb_em_rows __sqlnb_row)

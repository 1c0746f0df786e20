{{- /*
em_classes: the classes of the labelled rows in the temporary table nb_em_classes: the label value in the
label column's own type and its 1-based position i in the model's class list (bound as a VARCHAR[]), which
is the position of its posterior in nb_cv_em's list.
Data (queries.EMClasses): .From (with bound parameters), .Label, .Param (the number of the class-list parameter).
*/ -}}
CREATE OR REPLACE TEMPORARY TABLE nb_em_classes AS
SELECT l AS {{ident .Label}}, list_position(${{.Param}}::VARCHAR[], CAST(l AS VARCHAR)) AS __sqlnb_i
FROM (SELECT DISTINCT {{ident .Label}} AS l FROM {{.From}} __sqlnb_row WHERE {{ident .Label}} IS NOT NULL)

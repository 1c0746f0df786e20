{{- /*
em_rows: the unlabelled rows of a source (NULL label), materialised once for semi-supervised training in
the temporary table nb_em_rows: a row id __sqlnb_rid, the sample weight __sqlnb_w (1 without a weight
column) and the feature columns.
Data (queries.EMRows): .From (with bound parameters), .Label, .Weight (may be empty), .Features (feature column names).
*/ -}}
CREATE OR REPLACE TEMPORARY TABLE nb_em_rows AS
SELECT row_number() OVER () AS __sqlnb_rid, {{if .Weight}}CAST({{ident .Weight}} AS DOUBLE){{else}}1.0::DOUBLE{{end}} AS __sqlnb_w
    {{- range .Features}}, {{ident .}}{{end}}
FROM {{.From}} __sqlnb_row
WHERE {{ident .Label}} IS NULL

{{- /*
em_source: the M-step's rows as a FROM-clause item: the labelled rows with their sample weight (1 without
a weight column), and every unlabelled row (nb_em_rows) once per class (nb_em_classes) with that class as its
label and its weight times its posterior for the class (nb_em_post) as weight, in the column __sqlnb_w. The
training templates then run over it as a weighted source.
Data (queries.EMRows): .From (the source's FROM item, with its own bound parameters), .Label, .Weight (may be empty),
.Features (feature column names).
*/ -}}
(SELECT {{ident .Label}}, {{if .Weight}}CAST({{ident .Weight}} AS DOUBLE){{else}}1.0::DOUBLE{{end}} AS __sqlnb_w
    {{- range .Features}}, {{ident .}}{{end}}
 FROM {{.From}} __sqlnb_row
 WHERE {{ident .Label}} IS NOT NULL
 UNION ALL
 SELECT c.{{ident .Label}}, u.__sqlnb_w * e.p[c.__sqlnb_i]
    {{- range .Features}}, u.{{ident .}}{{end}}
 FROM nb_em_rows u JOIN nb_em_post e USING (__sqlnb_rid) CROSS JOIN nb_em_classes c)

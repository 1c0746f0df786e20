{{- /*
em_labelled_ll: the labelled part of semi-supervised training's log-likelihood, Σ w log p(x, y) over the
rows with a label (w: the sample weight, 1 without a weight column), scored with the current model, and the
number of rows and of rows scored.
Data (queries.EMLabelled): .From (with bound parameters), .Label, .Weight (may be empty), .Score (nb_cv_em(set, 0, label, t)).
*/ -}}
SELECT coalesce(fsum(w * e.ll), 0), count(*), count(e.ll)
FROM (
    SELECT {{if .Weight}}CAST({{ident .Weight}} AS DOUBLE){{else}}1.0::DOUBLE{{end}} AS w, {{.Score}} AS e
    FROM {{.From}} __sqlnb_row
    WHERE {{ident .Label}} IS NOT NULL
)

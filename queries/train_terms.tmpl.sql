{{- /*
train_terms: per (fold,) class and term the number of occurrences (and their weight) in one text column,
tokenized by sqlnb.TokenizeSQL (.Tokens, built from Ident), and the number of documents that contain it
(for min_df and max_features, applied when the model is bound). NULL text adds nothing.
Data: .From, .Label, .Weight (may be empty), .Fold, .Tokens. No parameters of its own.
*/ -}}
WITH src AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}},
           {{.Tokens}} AS tok
    FROM {{.From}} t
)
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, term, count(*) AS n, count(DISTINCT doc) AS docs{{if .Weight}}, fsum(w) AS weight{{end}}
FROM (SELECT {{if .Fold}}f, {{end}}l{{if .Weight}}, w{{end}}, doc, unnest(tok) AS term
      FROM (SELECT *, row_number() OVER () AS doc FROM src) WHERE l IS NOT NULL)
GROUP BY ALL
ORDER BY class, term

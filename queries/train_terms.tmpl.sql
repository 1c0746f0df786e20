{{- /*
train_terms: per (fold,) class and term the number of occurrences (and their weight) in one text column,
tokenized by sqlnb.TokenizeSQL (.Tokens, built from Ident), in one GROUP BY scan. NULL text adds nothing.
Data: .From, .Label, .Weight (may be empty), .Fold, .Tokens. No parameters of its own.
*/ -}}
WITH src AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}},
           {{.Tokens}} AS tok
    FROM {{.From}} t
)
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, term, count(*) AS n{{if .Weight}}, fsum(w) AS weight{{end}}
FROM (SELECT {{if .Fold}}f, {{end}}l{{if .Weight}}, w{{end}}, unnest(tok) AS term FROM src WHERE l IS NOT NULL)
GROUP BY ALL
ORDER BY class, term

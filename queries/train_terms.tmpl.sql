{{- /*
train_terms: per (fold,) class and term the number of occurrences (and their weight) in one text column,
tokenized by sqlnb.TokenizeSQL (.Tokens, built from Ident), and the number of documents that contain it
(for min_df and max_features, applied when the model is bound). NULL text adds nothing.
Data: .From, .Label, .Weight (may be empty), .Fold, .Tokens, .Present (sqlnb's present rule over e.value and a bound
threshold parameter $n).
*/ -}}
WITH src AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}},
           {{.Tokens}} AS tok
    FROM {{.From}} t
)
-- Each document's tokens become a histogram (term → occurrences): its entries give the occurrences and,
-- one entry per document, the document count.
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, e.key AS term, sum(e.value)::BIGINT AS n, count(*) AS docs,
       count(*) FILTER (WHERE {{.Present}}) AS present
       {{- if .Weight}}, fsum(w * e.value) AS weight{{end}}
FROM (SELECT {{if .Fold}}f, {{end}}l{{if .Weight}}, w{{end}}, unnest(map_entries(list_aggregate(tok, 'histogram'))) AS e
      FROM src WHERE l IS NOT NULL)
GROUP BY ALL
ORDER BY class, term

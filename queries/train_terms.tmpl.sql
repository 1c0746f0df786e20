{{- /*
train_terms: per (fold,) class and term the number of occurrences (and their weight) in one text column,
tokenized by sqlnb.TokenizeSQL (.Tokens, built from Ident), and the number of documents that contain it
(for min_df and max_features, applied when the model is bound). NULL text adds nothing. With .Docs, also one
row per (fold,) class with the empty term: docs = the class's documents whose text is not NULL (text_bernoulli's
n_c; the tokenizer never yields an empty term).
Data (queries.Terms): .From, .Label, .Weight (may be empty), .Fold, .Tokens, .Present (sqlnb's present rule over e.value and a bound
threshold parameter $n), .Docs (the text column, from Ident; empty: no document rows).
*/ -}}
WITH src AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}},
           {{.Tokens}} AS tok{{if .Docs}}, {{.Docs}} IS NOT NULL AS doc{{end}}
    FROM {{.From}} __sqlnb_row
)
-- Each document's tokens become a histogram (term → occurrences): its entries give the occurrences and,
-- one entry per document, the document count.
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, e.key AS term, sum(e.value)::BIGINT AS n, count(*) AS docs,
       count(*) FILTER (WHERE {{.Present}}) AS present
       {{- if .Weight}}, fsum(w * e.value) AS weight{{end}}
FROM (SELECT {{if .Fold}}f, {{end}}l{{if .Weight}}, w{{end}}, unnest(map_entries(list_aggregate(tok, 'histogram'))) AS e
      FROM src WHERE l IS NOT NULL)
GROUP BY ALL
{{- if .Docs}}
UNION ALL
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, '' AS term, 0::BIGINT AS n, count(*) AS docs, 0::BIGINT AS present
       {{- if .Weight}}, 0::DOUBLE AS weight{{end}}
FROM src
WHERE l IS NOT NULL AND doc
GROUP BY ALL
{{- end}}
ORDER BY class, term

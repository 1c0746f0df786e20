{{- /*
train_long_terms: a long term table (document id, term, count) joined to the labelled source on the document
id: per (fold,) class and term the summed count (and its weight) and the number of documents, in one
GROUP BY. Counts must be finite and ≥ 0 (a bad one is counted in the last column so training can reject it;
n is NULL then rather than a failed cast of NaN or ±Inf).
Data (queries.LongTerms): .From (labelled source, parameter $1 if any), .TermsFrom (term table, numbered after it), .Label,
.Weight, .Fold, .Doc (document id column, in both), .Term, .Count, .Present (the present rule over n and the
bound threshold, the last parameter).
*/ -}}
WITH labels AS (
    SELECT {{if .Fold}}{{.Fold}} AS f, {{end}}{{ident .Doc}} AS d, {{ident .Label}} AS l{{if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
    FROM {{.From}} __sqlnb_row
), terms AS (
    SELECT {{ident .Doc}} AS d, CAST({{ident .Term}} AS VARCHAR) AS term, CAST({{ident .Count}} AS DOUBLE) AS n
    FROM {{.TermsFrom}} __sqlnb_row
    WHERE {{ident .Term}} IS NOT NULL AND {{ident .Count}} IS NOT NULL
)
SELECT {{if .Fold}}f AS fold, {{end}}CAST(l AS VARCHAR) AS class, term,
       CASE WHEN isfinite(sum(n)) THEN round(sum(n))::BIGINT END AS n, count(DISTINCT d) AS docs,
       count(DISTINCT d) FILTER (WHERE {{.Present}}) AS present
       {{- if .Weight}}, fsum(w * n) AS weight{{else}}, fsum(n) AS weight{{end}}, count(*) FILTER (WHERE n < 0 OR NOT isfinite(n)) AS bad
FROM terms JOIN labels USING (d)
WHERE l IS NOT NULL
GROUP BY ALL
ORDER BY class, term

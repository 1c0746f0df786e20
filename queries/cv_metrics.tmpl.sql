{{- /*
cv_metrics: scores every row of a source once with its fold's model and aggregates, per fold g, in the
same statement: n, accuracy, log_loss, brier (per-row terms from nb_cv_terms, defined as in
eval_metrics.sql) and f1_macro (over the labels present in y or the predictions).
Data (queries.CVMetrics): .From, .Label, .Group (the fold expression over t), .Terms (nb_cv_terms(set, fold, label, positive class, t)).
*/ -}}
WITH per_row AS (
    SELECT g, y, r.pred AS pred, r.ll AS ll, r.brier AS brier
    FROM (
        SELECT {{.Group}} AS g, CAST({{ident .Label}} AS VARCHAR) AS y, {{.Terms}} AS r
        FROM {{.From}} __sqlnb_row
        WHERE {{ident .Label}} IS NOT NULL
    )
),
cells AS (
    -- No filter on the terms here: DuckDB would push it down and evaluate nb_cv_terms twice. Labels are
    -- never NULL (filtered above) and every row has a fold; a row the model cannot score (a missing value
    -- an lda, qda or logistic model needs) has NULL terms and counts nowhere (count(pred)).
    SELECT g, y, pred, count(pred)::DOUBLE AS n, {{template "exact_sum" "ll"}} AS ll, {{template "exact_sum" "brier"}} AS brier FROM per_row GROUP BY g, y, pred
),
labels AS (
    SELECT DISTINCT g, y AS c FROM cells WHERE n > 0 UNION SELECT DISTINCT g, pred FROM cells WHERE pred IS NOT NULL
),
prf AS (
    SELECT l.g, l.c,
           coalesce(sum(n) FILTER (WHERE y = l.c AND pred = l.c), 0) AS tp,
           coalesce(sum(n) FILTER (WHERE y <> l.c AND pred = l.c), 0) AS fp,
           coalesce(sum(n) FILTER (WHERE y = l.c AND pred <> l.c), 0) AS fn
    FROM labels l JOIN cells USING (g) GROUP BY l.g, l.c
),
f1 AS (
    SELECT g, c, CASE WHEN tp + fp > 0 THEN tp / (tp + fp) ELSE 0 END AS precision,
           CASE WHEN tp + fn > 0 THEN tp / (tp + fn) ELSE 0 END AS recall,
           CASE WHEN precision + recall > 0 THEN 2 * precision * recall / (precision + recall) ELSE 0 END AS f1
    FROM prf
)
SELECT g, unnest(['n', 'accuracy', 'log_loss', 'brier']),
       unnest([sum(n), coalesce(sum(n) FILTER (WHERE y = pred), 0) / sum(n), sum(ll ORDER BY y, pred) / sum(n), sum(brier ORDER BY y, pred) / sum(n)])
FROM cells GROUP BY g
UNION ALL
SELECT g, 'f1_macro', avg(f1 ORDER BY c) FROM f1 GROUP BY g
ORDER BY 1, 2

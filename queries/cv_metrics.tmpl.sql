{{- /*
cv_metrics: scores every row of a source once with its fold's model and aggregates, per fold g, in the
same statement: n, accuracy, log_loss (scikit-learn's clipping and renormalisation), brier (as in
eval_metrics.sql) and f1_macro (over the labels present in y or the predictions).
Data: .From, .Label, .Group (the fold expression over t), .Proba (nb_cv_proba(set, fold, t)).
*/ -}}
WITH scored AS (
    SELECT {{.Group}} AS g, CAST({{ident .Label}} AS VARCHAR) AS y, {{.Proba}} AS p
    FROM {{.From}} t
    WHERE {{ident .Label}} IS NOT NULL
),
per_row AS (
    SELECT g, y, map_keys(p)[list_position(map_values(p), list_max(map_values(p)))] AS pred,
           -ln(greatest(least(coalesce(p[y], 0), 1 - 2.220446049250313e-16), 2.220446049250313e-16)
               / list_sum([greatest(least(x, 1 - 2.220446049250313e-16), 2.220446049250313e-16) FOR x IN map_values(p)])) AS ll,
           CASE WHEN cardinality(p) = 2 THEN (map_values(p)[2] - (y = map_keys(p)[2])::DOUBLE) ^ 2
                ELSE list_sum([(e.value - (e.key = y)::DOUBLE) ^ 2 FOR e IN map_entries(p)]) END AS brier
    FROM scored WHERE p IS NOT NULL
),
cells AS (
    SELECT g, y, pred, count(*)::DOUBLE AS n, sum(ll) AS ll, sum(brier) AS brier FROM per_row GROUP BY g, y, pred
),
labels AS (
    SELECT DISTINCT g, y AS c FROM cells UNION SELECT DISTINCT g, pred FROM cells
),
prf AS (
    SELECT l.g, l.c,
           coalesce(sum(n) FILTER (WHERE y = l.c AND pred = l.c), 0) AS tp,
           coalesce(sum(n) FILTER (WHERE y <> l.c AND pred = l.c), 0) AS fp,
           coalesce(sum(n) FILTER (WHERE y = l.c AND pred <> l.c), 0) AS fn
    FROM labels l JOIN cells USING (g) GROUP BY l.g, l.c
),
f1 AS (
    SELECT g, CASE WHEN tp + fp > 0 THEN tp / (tp + fp) ELSE 0 END AS precision,
           CASE WHEN tp + fn > 0 THEN tp / (tp + fn) ELSE 0 END AS recall,
           CASE WHEN precision + recall > 0 THEN 2 * precision * recall / (precision + recall) ELSE 0 END AS f1
    FROM prf
)
SELECT g, unnest(['n', 'accuracy', 'log_loss', 'brier']),
       unnest([sum(n), sum(n) FILTER (WHERE y = pred) / sum(n), sum(ll) / sum(n), sum(brier) / sum(n)])
FROM cells GROUP BY g
UNION ALL
SELECT g, 'f1_macro', avg(f1) FROM f1 GROUP BY g
ORDER BY 1, 2

-- ROC and precision-recall curve points per class (one-vs-rest) of nb_eval_scored (group 0), at every
-- distinct score, thinned to at most ~500 points per class. No parameters.
WITH long AS (
    SELECT y, unnest(map_keys(p)) AS c, unnest(map_values(p)) AS pc FROM nb_eval_scored WHERE g = 0
),
thresholds AS (
    SELECT c, pc, count(*) FILTER (WHERE y = c) AS tp_at, count(*) FILTER (WHERE y <> c) AS fp_at FROM long GROUP BY c, pc
),
curve AS (
    SELECT c, pc, sum(tp_at) OVER w AS tp, sum(fp_at) OVER w AS fp,
           sum(tp_at) OVER (PARTITION BY c) AS npos, sum(fp_at) OVER (PARTITION BY c) AS nneg,
           row_number() OVER w AS i, count(*) OVER (PARTITION BY c) AS m
    FROM thresholds
    WINDOW w AS (PARTITION BY c ORDER BY pc DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT c, fp / greatest(nneg, 1) AS fpr, tp / greatest(npos, 1) AS tpr, tp / (tp + fp) AS precision
FROM curve
WHERE npos > 0 AND (m <= 500 OR i % (m // 500 + 1) = 0 OR i = m)
ORDER BY c, i

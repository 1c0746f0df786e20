-- The metrics of nb_eval_cells that need no sorting, per group g, as scikit-learn 1.2 defines them, in long
-- form (g, metric, class, value); class is NULL for overall metrics. No parameters.
--   n (the labelled rows scored); accuracy; log_loss and brier: the means of the per-row terms
--   (eval_cells.tmpl.sql); unlabelled: the rows with a NULL label, left out (the cell whose y is NULL);
--   per class precision, recall, f1 (2PR/(P+R), 0 when undefined) and support, over the labels present in
--   y or the predictions; their macro and support-weighted averages (summed in class order, as scikit-learn,
--   and the same from run to run: the cells' sums of the per-row terms are exact_sum's, added in cell order).
-- ROC-AUC and average precision sort the scores: eval_sorted.tmpl.sql and sqlnb's readRanking.
WITH labels AS (
    SELECT DISTINCT g, y AS c FROM nb_eval_cells WHERE y IS NOT NULL UNION SELECT DISTINCT g, pred FROM nb_eval_cells WHERE y IS NOT NULL
),
counts AS (
    SELECT l.g, l.c,
           coalesce(sum(s.n) FILTER (WHERE s.y = l.c AND s.pred = l.c), 0)::DOUBLE AS tp,
           coalesce(sum(s.n) FILTER (WHERE s.y <> l.c AND s.pred = l.c), 0)::DOUBLE AS fp,
           coalesce(sum(s.n) FILTER (WHERE s.y = l.c AND s.pred <> l.c), 0)::DOUBLE AS fn
    FROM labels l JOIN nb_eval_cells s ON s.g = l.g AND s.y IS NOT NULL
    GROUP BY l.g, l.c
),
prf AS (
    SELECT g, c, tp + fn AS support,
           CASE WHEN tp + fp > 0 THEN tp / (tp + fp) ELSE 0 END AS precision,
           CASE WHEN tp + fn > 0 THEN tp / (tp + fn) ELSE 0 END AS recall,
           CASE WHEN precision + recall > 0 THEN 2 * precision * recall / (precision + recall) ELSE 0 END AS f1
    FROM counts
)
SELECT g, unnest(['n', 'accuracy', 'log_loss', 'brier', 'unlabelled']) AS metric, NULL::VARCHAR AS class,
       unnest([coalesce(sum(n) FILTER (WHERE y IS NOT NULL), 0)::DOUBLE, coalesce(sum(n) FILTER (WHERE y = pred), 0) / sum(n) FILTER (WHERE y IS NOT NULL),
               sum(ll ORDER BY y, pred) / sum(n_ll), sum(brier ORDER BY y, pred) / sum(n_brier), coalesce(sum(n) FILTER (WHERE y IS NULL), 0)::DOUBLE]) AS value
FROM nb_eval_cells GROUP BY g
UNION ALL
SELECT g, unnest(['precision', 'recall', 'f1', 'support']), c, unnest([precision, recall, f1, support]) FROM prf
UNION ALL
SELECT g, unnest(['precision_macro', 'recall_macro', 'f1_macro', 'precision_weighted', 'recall_weighted', 'f1_weighted']), NULL,
       unnest([avg(precision ORDER BY c), avg(recall ORDER BY c), avg(f1 ORDER BY c), sum(precision * support ORDER BY c) / sum(support),
               sum(recall * support ORDER BY c) / sum(support), sum(f1 * support ORDER BY c) / sum(support)])
FROM prf GROUP BY g
ORDER BY g, metric, class NULLS FIRST

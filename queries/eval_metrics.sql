-- Classification metrics per group g of nb_eval_scored, as scikit-learn 1.2 defines them, in long form
-- (g, metric, class, value); class is NULL for overall metrics. Parameter $1: the positive class of a
-- two-class model (NULL: the second class).
--   accuracy; per class precision, recall, f1 (2PR/(P+R), 0 when undefined), support; their macro and
--   support-weighted averages over the labels present in y or the predictions;
--   log_loss: posteriors clipped to [ε, 1-ε] (ε = 2^-52) and renormalised, then -mean log p(y);
--   brier: two classes: mean (p(positive) - [y = positive])², positive = $1 or the second class;
--          more classes: mean Σ_c (p_c - [y = c])² (Brier 1950);
--   roc_auc per class (one-vs-rest, tied scores count 1/2: average ranks, Mann-Whitney), average_precision
--   per class (Σ over distinct thresholds, descending, of ΔRecall × Precision); two classes: roc_auc and
--   average_precision of the positive class; more: their macro and prevalence-weighted means over the
--   classes that have positives and negatives.
WITH long AS MATERIALIZED (
    SELECT g, rid, y, pred, unnest(map_keys(p)) AS c, unnest(map_values(p)) AS pc, cardinality(p) AS k,
           coalesce($1::VARCHAR, map_keys(p)[2]) AS positive
    FROM nb_eval_scored
),
rowloss AS (
    SELECT g, rid,
           -ln(coalesce(max(CASE WHEN c = y THEN greatest(least(pc, 1 - 2.220446049250313e-16), 2.220446049250313e-16) END),
                        2.220446049250313e-16)
               / sum(greatest(least(pc, 1 - 2.220446049250313e-16), 2.220446049250313e-16))) AS ll,
           CASE WHEN any_value(k) = 2 THEN max(CASE WHEN c = positive THEN (pc - (y = c)::DOUBLE) ^ 2 END)
                ELSE sum((pc - (y = c)::DOUBLE) ^ 2) END AS brier
    FROM long GROUP BY g, rid
),
overall AS (
    SELECT g, 'n' AS metric, count(*)::DOUBLE AS value FROM nb_eval_scored GROUP BY g
    UNION ALL SELECT g, 'accuracy', avg((y = pred)::DOUBLE) FROM nb_eval_scored GROUP BY g
    UNION ALL SELECT g, 'log_loss', avg(ll) FROM rowloss GROUP BY g
    UNION ALL SELECT g, 'brier', avg(brier) FROM rowloss GROUP BY g
),
labels AS (
    SELECT DISTINCT g, y AS c FROM nb_eval_scored UNION SELECT DISTINCT g, pred FROM nb_eval_scored
),
counts AS (
    SELECT l.g, l.c,
           count(*) FILTER (WHERE s.y = l.c AND s.pred = l.c)::DOUBLE AS tp,
           count(*) FILTER (WHERE s.y <> l.c AND s.pred = l.c)::DOUBLE AS fp,
           count(*) FILTER (WHERE s.y = l.c AND s.pred <> l.c)::DOUBLE AS fn
    FROM labels l JOIN nb_eval_scored s ON s.g = l.g
    GROUP BY l.g, l.c
),
prf AS (
    SELECT g, c, tp + fn AS support,
           CASE WHEN tp + fp > 0 THEN tp / (tp + fp) ELSE 0 END AS precision,
           CASE WHEN tp + fn > 0 THEN tp / (tp + fn) ELSE 0 END AS recall,
           CASE WHEN precision + recall > 0 THEN 2 * precision * recall / (precision + recall) ELSE 0 END AS f1
    FROM counts
),
ranked AS (
    SELECT g, c, y = c AS pos,
           rank() OVER (PARTITION BY g, c ORDER BY pc) + (count(*) OVER (PARTITION BY g, c, pc) - 1) / 2.0 AS r
    FROM long
),
auc AS (
    SELECT g, c, count(*) FILTER (WHERE pos)::DOUBLE AS np, count(*) FILTER (WHERE NOT pos)::DOUBLE AS nn,
           CASE WHEN np > 0 AND nn > 0 THEN (sum(r) FILTER (WHERE pos) - np * (np + 1) / 2) / (np * nn) END AS roc_auc
    FROM ranked GROUP BY g, c
),
thresholds AS (
    SELECT g, c, pc, count(*) FILTER (WHERE y = c)::DOUBLE AS tp_at, count(*) FILTER (WHERE y <> c)::DOUBLE AS fp_at
    FROM long GROUP BY g, c, pc
),
curve AS (
    SELECT g, c, tp_at, sum(tp_at) OVER w AS tp, sum(fp_at) OVER w AS fp, sum(tp_at) OVER (PARTITION BY g, c) AS npos
    FROM thresholds
    WINDOW w AS (PARTITION BY g, c ORDER BY pc DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
ap AS (
    SELECT g, c, CASE WHEN max(npos) > 0 THEN sum(CASE WHEN tp_at > 0 THEN tp_at / npos * (tp / (tp + fp)) ELSE 0 END) END AS average_precision
    FROM curve GROUP BY g, c
),
ranking AS (
    SELECT a.g, a.c, a.np, a.nn, a.roc_auc, p.average_precision, l.k, l.positive
    FROM auc a JOIN ap p USING (g, c) JOIN (SELECT DISTINCT g, k, positive FROM long) l USING (g)
)
SELECT g, metric, NULL::VARCHAR AS class, value FROM overall
UNION ALL
SELECT g, unnest(['precision', 'recall', 'f1', 'support']), c, unnest([precision, recall, f1, support]) FROM prf
UNION ALL
SELECT g, unnest(['precision_macro', 'recall_macro', 'f1_macro', 'precision_weighted', 'recall_weighted', 'f1_weighted']), NULL,
       unnest([avg(precision), avg(recall), avg(f1), sum(precision * support) / sum(support),
               sum(recall * support) / sum(support), sum(f1 * support) / sum(support)])
FROM prf GROUP BY g
UNION ALL
SELECT g, unnest(['roc_auc', 'average_precision']), c, unnest([roc_auc, average_precision]) FROM ranking
UNION ALL
SELECT g, unnest(['roc_auc', 'average_precision']), NULL, unnest([roc_auc, average_precision])
FROM ranking WHERE k = 2 AND c = positive
UNION ALL
SELECT g, unnest(['roc_auc_macro', 'roc_auc_weighted', 'average_precision_macro', 'average_precision_weighted']), NULL,
       unnest([avg(roc_auc), sum(roc_auc * np) / sum(np), avg(average_precision), sum(average_precision * np) / sum(np)])
FROM ranking WHERE k > 2 AND roc_auc IS NOT NULL GROUP BY g
ORDER BY g, metric, class NULLS FIRST

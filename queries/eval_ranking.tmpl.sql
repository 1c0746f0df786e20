{{- /*
eval_ranking: ROC-AUC and average precision of one class against the rest, per group g of
nb_eval_scored, from one sort of the class's posteriors (descending). Rows whose posterior of the class is
NULL are left out. Per group: n rows, np positives, nn negatives and
  roc_auc: Mann-Whitney U / (np nn), tied scores counting 1/2: a row's average ascending rank is
           (2n - ge - rk + 2) / 2, with rk its descending rank() and ge the rows scoring at least as high, so
           U = (np (2n + 2) - Σ_pos (rk + ge) - np (np + 1)) / 2, summed as exact integers (HUGEINT);
           NULL without positives or negatives;
  average_precision: Σ over the distinct thresholds, descending, of ΔRecall × Precision = the mean over the
           positives of tp / ge, tp the positives scoring at least as high (ties included); NULL without
           positives.
Parameter $1: the class's position in the class list. Data: .Col (the same position, naming column p<Col>),
.Grouped (nb_eval_scored has groups: one sort per group, else one sort and group 0).
*/ -}}
SELECT {{if .Grouped}}g{{else}}0{{end}} AS g, n::BIGINT AS n, np::BIGINT AS np, (n - np)::BIGINT AS nn,
       CASE WHEN np > 0 AND n > np THEN (np * (2 * n + 2) - rank_sum - np * (np + 1))::DOUBLE / (2 * np * (n - np)) END AS roc_auc,
       CASE WHEN np > 0 THEN precision_sum / np END AS average_precision
FROM (
    SELECT {{if .Grouped}}g, {{end}}count(*)::HUGEINT AS n, sum(pos::INTEGER)::HUGEINT AS np,
           coalesce(sum(CASE WHEN pos THEN rk + ge END), 0)::HUGEINT AS rank_sum,
           sum(CASE WHEN pos THEN tp / ge END) AS precision_sum
    FROM (
        SELECT {{if .Grouped}}g, {{end}}pos, rank() OVER w AS rk, count(*) OVER w AS ge, sum(pos::INTEGER) OVER w AS tp
        FROM (SELECT {{if .Grouped}}g, {{end}}coalesce(yi = $1, false) AS pos, p{{.Col}} AS s FROM nb_eval_scored WHERE p{{.Col}} IS NOT NULL)
        WINDOW w AS ({{if .Grouped}}PARTITION BY g {{end}}ORDER BY s DESC)
    ){{if .Grouped}}
    GROUP BY g{{end}}
)
ORDER BY g

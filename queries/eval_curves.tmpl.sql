{{- /*
eval_curves: ROC and precision-recall curve points of one class against the rest, in group 0 of
nb_eval_scored: one point per distinct posterior of the class, descending (false and true positive rates
and the precision of the rows scoring at least as high), thinned to at most ~500 points. Nothing when the
class has no positives.
Parameter $1: the class's position in the class list. Data: .Col (the same position), .Grouped.
*/ -}}
SELECT fp / greatest(n - np, 1) AS fpr, tp / greatest(np, 1) AS tpr, tp / ge AS precision
FROM (
    SELECT *, ge - tp AS fp, max(i) OVER () AS m
    FROM (
        SELECT rank() OVER w AS rk, row_number() OVER w AS rn, dense_rank() OVER w AS i, count(*) OVER w AS ge,
               sum(pos::INTEGER) OVER w AS tp, count(*) OVER () AS n, sum(pos::INTEGER) OVER () AS np
        FROM (SELECT coalesce(yi = $1, false) AS pos, p{{.Col}} AS s FROM nb_eval_scored WHERE {{if .Grouped}}g = 0 AND {{end}}p{{.Col}} IS NOT NULL)
        WINDOW w AS (ORDER BY s DESC)
    )
    WHERE rn = rk
)
WHERE np > 0 AND (m <= 500 OR i % (m // 500 + 1) = 0 OR i = m)
ORDER BY i

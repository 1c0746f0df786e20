-- Confusion matrix per group g of nb_eval_scored: every (actual, predicted) pair with its count. No parameters.
SELECT g, y AS actual, pred AS predicted, count(*) AS n FROM nb_eval_scored GROUP BY ALL ORDER BY ALL

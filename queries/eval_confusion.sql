-- Confusion matrix per group g of nb_eval_cells: every (actual, predicted) pair with its count. No parameters.
SELECT g, y AS actual, pred AS predicted, n FROM nb_eval_cells WHERE y IS NOT NULL ORDER BY ALL

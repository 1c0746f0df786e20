-- Format 4 → 5: every model's hyperparameters as format 4 stored them, one column each. No parameters.
SELECT name, alpha, var_smoothing, variance, priors, norm, min_df, max_features, threshold, eps, reg_param, solver,
       shrinkage, c, penalty, tol, max_iter
FROM nb.models

-- Loads the part of a model row that binding needs to decide whether a cached model is current.
-- Parameters: $1 model name.
SELECT generation, alpha, var_smoothing, variance, priors, norm, min_df, max_features, threshold, eps,
       reg_param, solver, shrinkage, c, penalty, tol, max_iter
FROM nb.models WHERE name = $1

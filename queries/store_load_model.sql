-- Loads one model row. Parameters: $1 model name.
SELECT name, label, label_type, weight, source, alpha, var_smoothing, variance, priors, norm, min_df, max_features, n_rows, skipped_rows,
       created, format_version, generation, threshold, eps, reg_param, solver, shrinkage, c, penalty, tol, max_iter,
       incomplete_rows, iterations, grad_norm
FROM nb.models WHERE name = $1

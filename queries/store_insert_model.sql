-- Inserts one model row. Parameters in column order of nb.models.
INSERT INTO nb.models (name, label, label_type, weight, source, alpha, var_smoothing, variance, priors, norm,
                       min_df, max_features, n_rows, skipped_rows, created, format_version, generation, threshold, eps,
                       reg_param, solver, shrinkage, c, penalty, tol, max_iter, incomplete_rows, iterations, grad_norm)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
        $25, $26, $27, $28, $29)

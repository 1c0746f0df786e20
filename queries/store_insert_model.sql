-- Inserts one model row. Parameters in column order of nb.models.
INSERT INTO nb.models (name, label, label_type, weight, source, params, n_rows, skipped_rows, created, format_version,
                       generation, incomplete_rows, iterations, grad_norm, unlabelled_rows, log_likelihood, group_by)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)

-- Loads one model row. Parameters: $1 model name.
SELECT name, label, label_type, weight, source, params, n_rows, skipped_rows, created, format_version, generation,
       incomplete_rows, iterations, grad_norm, unlabelled_rows, log_likelihood, group_by
FROM nb.models WHERE name = $1

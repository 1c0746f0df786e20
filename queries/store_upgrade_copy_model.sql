-- Format 4 → 5: copies one model row into the format-5 table nb.models_v5, with its hyperparameters as one
-- JSON object. Parameters: $1 the JSON object, $2 model name.
INSERT INTO nb.models_v5 (name, label, label_type, weight, source, params, n_rows, skipped_rows, created, format_version,
                          generation, incomplete_rows, iterations, grad_norm, unlabelled_rows, log_likelihood, group_by)
SELECT name, label, label_type, weight, source, $1, n_rows, skipped_rows, created, format_version, generation,
       incomplete_rows, iterations, grad_norm, unlabelled_rows, log_likelihood, group_by
FROM nb.models WHERE name = $2

-- Loads one model's groups in order. Parameters: $1 model name.
SELECT group_id, key, n_rows, skipped_rows, incomplete_rows FROM nb.groups WHERE model = $1 ORDER BY group_id

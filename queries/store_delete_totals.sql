-- Deletes one model's rows from nb.totals. Parameters: $1 model name.
DELETE FROM nb.totals WHERE model = $1

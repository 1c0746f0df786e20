-- Deletes one model's rows from nb.categorical. Parameters: $1 model name.
DELETE FROM nb.categorical WHERE model = $1

-- Deletes one model's rows from nb.gaussian. Parameters: $1 model name.
DELETE FROM nb.gaussian WHERE model = $1

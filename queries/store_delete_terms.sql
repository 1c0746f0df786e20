-- Deletes one model's rows from nb.terms. Parameters: $1 model name.
DELETE FROM nb.terms WHERE model = $1

-- Deletes one model's rows from nb.features. Parameters: $1 model name.
DELETE FROM nb.features WHERE model = $1

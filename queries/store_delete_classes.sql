-- Deletes one model's rows from nb.classes. Parameters: $1 model name.
DELETE FROM nb.classes WHERE model = $1

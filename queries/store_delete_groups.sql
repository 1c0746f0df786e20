-- Deletes one model's rows from nb.groups. Parameters: $1 model name.
DELETE FROM nb.groups WHERE model = $1

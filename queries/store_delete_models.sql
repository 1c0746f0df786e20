-- Deletes one model's rows from nb.models. Parameters: $1 model name.
DELETE FROM nb.models WHERE name = $1

-- Deletes one model's rows from nb.group_classes. Parameters: $1 model name.
DELETE FROM nb.group_classes WHERE model = $1

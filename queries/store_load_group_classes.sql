-- Loads the classes of one model's groups in order. Parameters: $1 model name.
SELECT group_id, label, count, weight FROM nb.group_classes WHERE model = $1 ORDER BY group_id, position

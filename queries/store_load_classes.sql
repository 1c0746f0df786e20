-- Loads one model's classes in order. Parameters: $1 model name.
SELECT label, count, weight, prior FROM nb.classes WHERE model = $1 ORDER BY position

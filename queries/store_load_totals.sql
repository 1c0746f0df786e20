-- Loads one model's count totals. Parameters: $1 model name.
SELECT feature, class, total FROM nb.totals WHERE model = $1

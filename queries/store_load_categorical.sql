-- Loads one model's categorical counts. Parameters: $1 model name.
SELECT feature, class, value, count, weight FROM nb.categorical WHERE model = $1

-- Loads one model's term counts. Parameters: $1 model name.
SELECT feature, class, term, count, docs, weight FROM nb.terms WHERE model = $1

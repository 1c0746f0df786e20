-- Loads one model's term counts. Parameters: $1 model name.
SELECT feature, class, term, count, docs, present, weight FROM nb.terms WHERE model = $1

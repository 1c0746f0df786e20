-- Loads one model's features in training order. Parameters: $1 model name.
SELECT name, kind, type, ngrams, stop_words, binarize FROM nb.features WHERE model = $1 ORDER BY position

-- Format 4 → 5: one model's hyperparameters as JSON. Parameters: $1 the JSON object, $2 model name.
UPDATE nb.models SET params = $1 WHERE name = $2

-- Changes a model's hyperparameters and generation if its generation is still the one read.
-- Parameters: $1 the hyperparameters (JSON), $2 new generation, $3 model name, $4 the generation read.
UPDATE nb.models SET params = $1, generation = $2
WHERE name = $3 AND generation = $4

-- Loads the part of a model row that binding needs to decide whether a cached model is current.
-- Parameters: $1 model name.
SELECT generation, params FROM nb.models WHERE name = $1

-- The generation (version) of one stored model. Parameters: $1 model name.
SELECT generation FROM nb.models WHERE name = $1

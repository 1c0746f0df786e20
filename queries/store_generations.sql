-- The generation of every stored model. No parameters.
SELECT generation FROM nb.models ORDER BY name

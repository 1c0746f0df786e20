-- Names of every stored model, sorted. No parameters.
SELECT name FROM nb.models ORDER BY name

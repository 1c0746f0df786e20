-- Lists every model with a summary. No parameters.
SELECT m.name, m.label, m.n_rows,
       (SELECT count(*) FROM nb.classes c WHERE c.model = m.name) AS classes,
       (SELECT count(*) FROM nb.features f WHERE f.model = m.name) AS features,
       (SELECT string_agg(DISTINCT f.kind, ',' ORDER BY f.kind) FROM nb.features f WHERE f.model = m.name) AS kinds,
       m.alpha, m.var_smoothing, m.variance, m.priors, m.created
FROM nb.models m
ORDER BY m.name

-- Changes a model's hyperparameters and generation if its generation is still the one read.
-- Parameters: $1 alpha, $2 var_smoothing, $3 variance, $4 priors, $5 norm, $6 min_df, $7 max_features,
-- $8 threshold, $9 eps, $10 new generation, $11 model name, $12 the generation read.
UPDATE nb.models SET alpha = $1, var_smoothing = $2, variance = $3, priors = $4, norm = $5, min_df = $6,
       max_features = $7, threshold = $8, eps = $9, generation = $10
WHERE name = $11 AND generation = $12

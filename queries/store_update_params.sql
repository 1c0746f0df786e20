-- Changes a model's hyperparameters and generation if its generation is still the one read.
-- Parameters: $1 alpha, $2 var_smoothing, $3 variance, $4 priors, $5 norm, $6 min_df, $7 max_features,
-- $8 threshold, $9 eps, $10 reg_param, $11 solver, $12 shrinkage, $13 c, $14 penalty, $15 tol, $16 max_iter,
-- $17 new generation, $18 model name, $19 the generation read.
UPDATE nb.models SET alpha = $1, var_smoothing = $2, variance = $3, priors = $4, norm = $5, min_df = $6,
       max_features = $7, threshold = $8, eps = $9, reg_param = $10, solver = $11, shrinkage = $12, c = $13,
       penalty = $14, tol = $15, max_iter = $16, generation = $17
WHERE name = $18 AND generation = $19

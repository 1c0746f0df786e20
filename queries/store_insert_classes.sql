-- Inserts a model's classes from parallel lists. Parameters: $1 model, $2 labels, $3 counts, $4 weights,
-- $5 given priors (NULL entries when not given).
INSERT INTO nb.classes
SELECT $1, generate_subscripts($2::VARCHAR[], 1) - 1, unnest($2::VARCHAR[]), unnest($3::BIGINT[]),
       unnest($4::DOUBLE[]), unnest($5::DOUBLE[])

-- Inserts a model's features from parallel lists. Parameters: $1 model, $2 names, $3 kinds, $4 types,
-- $5 n-gram lengths, $6 stop-word lists, $7 binarize thresholds.
INSERT INTO nb.features
SELECT $1, generate_subscripts($2::VARCHAR[], 1) - 1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[]), unnest($4::VARCHAR[]),
       unnest($5::INTEGER[]), unnest($6::VARCHAR[]), unnest($7::DOUBLE[])

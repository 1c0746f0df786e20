-- Inserts Gaussian statistics from parallel lists. Parameters: $1 model, $2 features, $3 classes,
-- $4 counts, $5 means, $6 m2, $7 weights, $8 weighted means, $9 weighted m2.
INSERT INTO nb.gaussian
SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[]), unnest($4::BIGINT[]), unnest($5::DOUBLE[]),
       unnest($6::DOUBLE[]), unnest($7::DOUBLE[]), unnest($8::DOUBLE[]), unnest($9::DOUBLE[])

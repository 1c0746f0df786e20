-- Inserts term counts from parallel lists. Parameters: $1 model, $2 features, $3 classes, $4 terms, $5 counts,
-- $6 document counts, $7 weights.
INSERT INTO nb.terms
SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), unnest($5::BIGINT[]), unnest($6::BIGINT[]),
       unnest($7::DOUBLE[])

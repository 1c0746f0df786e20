-- Inserts term counts from parallel lists. Parameters: $1 model, $2 features, $3 classes, $4 terms, $5 counts,
-- $6 document counts, $7 documents above the binarize threshold, $8 weights.
INSERT INTO nb.terms
SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), unnest($5::BIGINT[]), unnest($6::BIGINT[]),
       unnest($7::BIGINT[]), unnest($8::DOUBLE[])

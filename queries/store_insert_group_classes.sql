-- Inserts the classes of a model's groups from parallel lists. Parameters: $1 model, $2 group ids,
-- $3 positions, $4 labels, $5 counts, $6 weights.
INSERT INTO nb.group_classes
SELECT $1, unnest($2::BIGINT[]), unnest($3::INTEGER[]), unnest($4::VARCHAR[]), unnest($5::BIGINT[]), unnest($6::DOUBLE[])

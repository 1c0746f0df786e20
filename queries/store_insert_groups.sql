-- Inserts a model's groups from parallel lists. Parameters: $1 model, $2 group ids, $3 keys (JSON), $4 rows,
-- $5 skipped rows, $6 incomplete rows.
INSERT INTO nb.groups
SELECT $1, unnest($2::BIGINT[]), unnest($3::VARCHAR[]), unnest($4::BIGINT[]), unnest($5::BIGINT[]), unnest($6::BIGINT[])

-- Inserts count totals from parallel lists. Parameters: $1 model, $2 features, $3 classes, $4 totals.
INSERT INTO nb.totals
SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[]), unnest($4::DOUBLE[])

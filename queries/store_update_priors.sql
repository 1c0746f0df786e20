-- Sets a model's given priors by class label (NaN: not given, stored as NULL). Parameters: $1 model, $2 labels,
-- $3 priors.
UPDATE nb.classes SET prior = CASE WHEN isnan(p.prior) THEN NULL ELSE p.prior END
FROM (SELECT unnest($2::VARCHAR[]) AS label, unnest($3::DOUBLE[]) AS prior) p
WHERE nb.classes.model = $1 AND nb.classes.label = p.label

-- Format 4 → 5: the hyperparameters as one JSON object (the old columns are read into it, then dropped).
-- No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS params VARCHAR

-- Format 2 → 3: logistic regression's penalty. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS penalty VARCHAR DEFAULT 'l2'

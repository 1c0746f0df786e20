-- Format 2 → 3: logistic regression's C. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS c DOUBLE DEFAULT 1

-- Format 2 → 3: logistic regression's final gradient. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS grad_norm DOUBLE DEFAULT 0

-- Format 3 → 4: the final log-likelihood of semi-supervised training. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS log_likelihood DOUBLE DEFAULT 0

-- Format 2 → 3: logistic regression's iteration limit. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS max_iter BIGINT DEFAULT 100

-- Format 2 → 3: logistic regression's Newton steps. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS iterations BIGINT DEFAULT 0

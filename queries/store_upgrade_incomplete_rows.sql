-- Format 2 → 3: rows left out for a missing feature value. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS incomplete_rows BIGINT DEFAULT 0

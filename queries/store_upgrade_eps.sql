-- Format 1 → 2: e1071's eps. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS eps DOUBLE DEFAULT 0

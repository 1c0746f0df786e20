-- Format 1 → 2: e1071's prediction rule (threshold 0: off). No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS threshold DOUBLE DEFAULT 0

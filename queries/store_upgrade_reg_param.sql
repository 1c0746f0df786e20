-- Format 2 → 3: QDA's reg_param. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS reg_param DOUBLE DEFAULT 0

-- Format 2 → 3: LDA's shrinkage. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS shrinkage DOUBLE DEFAULT 0

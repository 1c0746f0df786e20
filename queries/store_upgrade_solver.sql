-- Format 2 → 3: LDA's solver. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS solver VARCHAR DEFAULT 'svd'

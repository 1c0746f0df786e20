-- Format 3 → 4: the unlabelled rows of semi-supervised training. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS unlabelled_rows BIGINT DEFAULT 0

-- Format 3 → 4: the group columns of per-group models (NULL: an ordinary model). No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS group_by VARCHAR

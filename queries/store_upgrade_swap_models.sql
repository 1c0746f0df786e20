-- Format 4 → 5: the format-5 table replaces nb.models (a new table rather than ALTER TABLE and UPDATE, which
-- DuckDB 1.5 refuses to commit in one transaction). No parameters.
DROP TABLE nb.models;
ALTER TABLE nb.models_v5 RENAME TO models

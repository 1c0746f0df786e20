-- Format 4 → 5: drops one of the hyperparameter columns format 4 kept (now in params). Data: Column, the
-- column name (quoted).
ALTER TABLE nb.models DROP COLUMN {{.Column}}

-- Format 2 → 3: logistic regression's tolerance. No parameters.
ALTER TABLE nb.models ADD COLUMN IF NOT EXISTS tol DOUBLE DEFAULT 1e-10

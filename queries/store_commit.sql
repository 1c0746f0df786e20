-- Commits the transaction that stores a model. No parameters.
COMMIT

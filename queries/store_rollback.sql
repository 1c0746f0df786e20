-- Rolls back the transaction that stores a model. No parameters.
ROLLBACK

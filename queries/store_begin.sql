-- Starts the transaction that stores a model (on one connection, so the row appender joins it). No parameters.
BEGIN TRANSACTION

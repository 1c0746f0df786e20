-- Creates the schema that holds every model. No parameters.
CREATE SCHEMA IF NOT EXISTS nb

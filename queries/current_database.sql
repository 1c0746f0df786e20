-- The name of the database a connection uses by default (its catalog). No parameters.
SELECT current_database()

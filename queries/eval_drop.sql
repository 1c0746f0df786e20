-- Drops the temporary scored rows of an evaluation. No parameters.
DROP TABLE IF EXISTS nb_eval_scored

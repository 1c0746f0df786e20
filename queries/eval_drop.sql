-- Drops the temporary scored and sorted rows of an evaluation. No parameters.
DROP TABLE IF EXISTS nb_eval_scored;
DROP TABLE IF EXISTS nb_eval_sorted

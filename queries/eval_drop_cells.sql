-- Drops the temporary confusion cells of an evaluation. No parameters.
DROP TABLE IF EXISTS nb_eval_cells

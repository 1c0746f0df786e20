-- Reads nb_eval_sorted (eval_sorted.tmpl.sql) in its order, which preserve_insertion_order keeps. No parameters.
SELECT g, pos, s FROM nb_eval_sorted

-- Whether DuckDB keeps insertion order (preserve_insertion_order: its default, true), which the ranking
-- metrics need to read nb_eval_sorted in its sorted order. No parameters.
SELECT current_setting('preserve_insertion_order')

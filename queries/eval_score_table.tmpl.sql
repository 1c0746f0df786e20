{{- /*
eval_score_table: scores a source once into the temporary table nb_eval_scored (eval_scored.tmpl.sql's
rows and columns), for the metrics that sort the scores. Under DuckDB's memory_limit the table spills to
temp_directory. Parameter $1: the class labels (VARCHAR[]); the source binds $2. Data (queries.EvalScored): as eval_scored.
*/ -}}
CREATE OR REPLACE TEMPORARY TABLE nb_eval_scored AS
{{template "eval_scored.tmpl.sql" .}}

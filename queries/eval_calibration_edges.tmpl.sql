{{- /*
eval_calibration_edges: the posteriors of one class (group 0 of nb_eval_scored, NULLs left out) at the given
0-based positions of their ascending order, from which the quantile bin edges of the reliability diagram
are interpolated as numpy.percentile and DuckDB's quantile_cont do (one sort, in bounded memory).
Parameters: $1 the positions (BIGINT[]). Data: .Col (the class's position), .Grouped.
*/ -}}
SELECT j, s
FROM (
    SELECT s, row_number() OVER (ORDER BY s) - 1 AS j
    FROM (SELECT p{{.Col}} AS s FROM nb_eval_scored WHERE {{if .Grouped}}g = 0 AND {{end}}p{{.Col}} IS NOT NULL)
)
WHERE list_contains($1::BIGINT[], j)
ORDER BY j

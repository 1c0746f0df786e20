{{- /*
eval_sorted: the posteriors of one class against the rest, per group g of nb_eval_scored, sorted
descending within the group, for ROC-AUC and average precision computed as the rows stream by (sqlnb's
readRanking: tied scores form one threshold). Rows whose posterior of the class is NULL are left out.
Columns: g (0 without groups), pos (1 for a row of the class, else 0), s (the posterior). DuckDB's sort
spills under memory_limit; the result is read as it is produced.
Parameter $1: the class's position in the class list. Data: .Col (the same position, naming column
p<Col>), .Grouped (nb_eval_scored has groups).
*/ -}}
SELECT {{if .Grouped}}g{{else}}0{{end}}::INTEGER AS g, coalesce(yi = $1, false)::UTINYINT AS pos, p{{.Col}} AS s
FROM nb_eval_scored
WHERE p{{.Col}} IS NOT NULL
ORDER BY {{if .Grouped}}g, {{end}}s DESC

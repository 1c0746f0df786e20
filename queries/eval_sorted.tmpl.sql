{{- /*
eval_sorted: the posteriors of one class against the rest into the temporary table nb_eval_sorted, sorted
descending within each group g of nb_eval_scored (eval_sorted_read.sql then reads them in that order, and
sqlnb's readRanking computes ROC-AUC and average precision as they stream by: tied scores form one
threshold). Rows whose posterior of the class is NULL are left out. Columns: g (0 without groups), pos (1
for a row of the class, else 0), s (the posterior). DuckDB's sort spills under memory_limit and so does the
table; the order is kept by preserve_insertion_order, which readRanking sets for these statements. (A
streaming ORDER BY result would save writing the table, but ran out of memory at 50M rows under 256MB
where sorting into a table does not.)
Parameter $1: the class's position in the class list. Data (queries.EvalSorted): .Col (the same position, naming column
p<Col>), .Grouped (nb_eval_scored has groups).
*/ -}}
CREATE OR REPLACE TEMPORARY TABLE nb_eval_sorted AS
SELECT {{if .Grouped}}g{{else}}0{{end}}::INTEGER AS g, coalesce(yi = $1, false)::UTINYINT AS pos, p{{.Col}} AS s
FROM nb_eval_scored
WHERE p{{.Col}} IS NOT NULL
ORDER BY {{if .Grouped}}g, {{end}}s DESC

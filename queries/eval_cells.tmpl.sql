{{- /*
eval_cells: the temporary table nb_eval_cells(g, y, pred, n, ll, n_ll, brier, n_brier): per group and cell
of the confusion matrix (true label; predicted class, the first class with the largest posterior; as
text), the number of rows and the sums (and counts) of the per-row log-loss and Brier terms, as
scikit-learn 1.2 defines them:
  log-loss term: -ln p(y), the posteriors clipped to [ε, 1-ε] (ε = 2^-52) and renormalised; a label
  outside the classes has p(y) = ε;
  Brier term: two classes: (p(positive) - [y = positive])² (.Pos: the positive class's position); more
  classes: Σ_c (p_c - [y = c])² (Brier 1950).
One pass: over nb_eval_scored (.Table) or scoring the source inline (eval_scored.tmpl.sql, same data and
parameters). Parameter $1: the class labels (VARCHAR[]); an inline source binds $2.
Data (queries.EvalCells): .Table, .Grouped, .Positions (1 … K), .Pos (the positive class's position when K = 2, else 0), and
eval_scored's data when not .Table.
*/ -}}
CREATE OR REPLACE TEMPORARY TABLE nb_eval_cells AS
SELECT g, coalesce(($1::VARCHAR[])[yi], yx) AS y, ($1::VARCHAR[])[pi] AS pred, n, ll, n_ll, brier, n_brier
FROM (
    SELECT g, yi, yx, pi, count(*) AS n, {{template "exact_sum" "ll"}} AS ll, count(ll) AS n_ll, {{template "exact_sum" "brier"}} AS brier, count(brier) AS n_brier
    FROM (
        SELECT {{if .Grouped}}g{{else}}0{{end}} AS g, yi, yx,
               CASE{{range .Positions}} WHEN p{{.}} = m THEN {{.}}{{end}} END AS pi,
               -- A row with a NULL label (yi and yx NULL: eval_scored's, counted apart) has no terms.
               CASE WHEN yi IS NOT NULL OR yx IS NOT NULL THEN -ln(coalesce(c[yi], 2.220446049250313e-16) / list_sum(c)) END AS ll,
{{- if .Pos}}
               CASE WHEN yi IS NOT NULL OR yx IS NOT NULL THEN (p{{.Pos}} - coalesce(yi = {{.Pos}}, false)::DOUBLE) ^ 2 END AS brier
{{- else}}
               CASE WHEN yi IS NOT NULL OR yx IS NOT NULL THEN list_sum([{{range $i, $c := .Positions}}{{if $i}}, {{end}}(p{{$c}} - coalesce(yi = {{$c}}, false)::DOUBLE) ^ 2{{end}}]) END AS brier
{{- end}}
        FROM (
            SELECT *, greatest({{range $i, $c := .Positions}}{{if $i}}, {{end}}p{{$c}}{{end}}) AS m,
                   [{{range $i, $c := .Positions}}{{if $i}}, {{end}}greatest(least(p{{$c}}, 1 - 2.220446049250313e-16), 2.220446049250313e-16){{end}}] AS c
            FROM {{if .Table}}nb_eval_scored{{else}}({{template "eval_scored.tmpl.sql" .}}){{end}}
        )
    )
    GROUP BY g, yi, yx, pi
)

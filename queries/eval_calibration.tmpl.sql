{{- /*
eval_calibration: the reliability diagram of one class against the rest (group 0 of nb_eval_scored), in
scikit-learn 1.2's calibration_curve(strategy='quantile', n_bins=10) bins: a row goes to the bin numbered by
how many edges lie below its posterior (numpy.searchsorted), empty bins are left out. Per bin: its number,
the mean posterior, the share of rows of the class and the number of rows.
Parameters: $1 the class's position, $2 the edges (DOUBLE[], eval_calibration_edges.tmpl.sql). Data: .Col, .Grouped.
*/ -}}
SELECT bin::INTEGER AS bin, avg(s) AS predicted, avg(hit) AS observed, count(*) AS n
FROM (
    SELECT s, coalesce(yi = $1, false)::DOUBLE AS hit, len(list_filter($2::DOUBLE[], x -> x < s)) AS bin
    FROM (SELECT yi, p{{.Col}} AS s FROM nb_eval_scored WHERE {{if .Grouped}}g = 0 AND {{end}}p{{.Col}} IS NOT NULL)
)
GROUP BY bin ORDER BY bin

{{- /*
eval_counts: the number of non-NULL posteriors of each class in group 0 of nb_eval_scored (one scan), which
the reliability diagram's quantile bins need before the class's sorted posteriors stream by (sqlnb's
readRanking). Data (queries.EvalCounts): .Grouped, .Positions (1 … K).
*/ -}}
SELECT {{range $i, $c := .Positions}}{{if $i}}, {{end}}count(p{{$c}}){{end}}
FROM nb_eval_scored{{if .Grouped}}
WHERE g = 0{{end}}

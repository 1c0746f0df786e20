{{- /* store_delete_stats: deletes one model's rows of nb.<name>. Data (queries.StatsTable): .Name. Parameters: $1 model name. */ -}}
DELETE FROM nb.{{ident .Name}} WHERE model = $1

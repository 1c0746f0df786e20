{{- /*
store_upgrade_group_id: format 3 → 4: the group id of the statistics rows of nb.<name> (0: the model itself).
Data (queries.StatsTable): .Name. No parameters.
*/ -}}
ALTER TABLE nb.{{ident .Name}} ADD COLUMN IF NOT EXISTS group_id BIGINT DEFAULT 0

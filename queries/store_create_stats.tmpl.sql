{{- /*
store_create_stats: the table nb.<name> of one kind of statistics rows (sqlnb.Table): the model name, then one
group id (0: the model itself, the pooled model of a per-group model; k: its group k in nb.groups), then one
column per field of the row type, named by its JSON name. Data (queries.StatsTable): .Name, .Columns (.Name, .Type: VARCHAR,
BIGINT or DOUBLE, fixed by the Go row type). No parameters.
*/ -}}
CREATE TABLE IF NOT EXISTS nb.{{ident .Name}} (
    model VARCHAR NOT NULL,
    group_id BIGINT NOT NULL DEFAULT 0
    {{- range .Columns}},
    {{ident .Name}} {{.Type}} NOT NULL
    {{- end}}
)

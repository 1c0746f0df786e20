{{- /* store_drop_marker: drops a model version's marker. Data (queries.Marker): .Name. No parameters. */ -}}
DROP SEQUENCE IF EXISTS nb.{{ident .Name}}

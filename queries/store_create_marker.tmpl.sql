{{- /* store_create_marker: the catalog object marking a model version (sqlnb.VersionMarker). Data (queries.Marker): .Name; .IfMissing
   (upgrades: stores written before markers existed, or with some). No parameters. */ -}}
CREATE SEQUENCE {{if .IfMissing}}IF NOT EXISTS {{end}}nb.{{ident .Name}}

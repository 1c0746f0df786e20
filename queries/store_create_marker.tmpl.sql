{{- /* store_create_marker: the catalog object marking a model version (sqlnb.VersionMarker). Data: .Name. No parameters. */ -}}
CREATE SEQUENCE nb.{{ident .Name}}

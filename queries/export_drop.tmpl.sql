{{- /* export_drop: drops an object an earlier sqlnb export --persist made. Data (queries.ExportDrop): .Kind (TABLE or MACRO), .Name. No parameters. */ -}}
DROP {{if eq .Kind "macro"}}MACRO{{else}}TABLE{{end}} main.{{ident .Name}}

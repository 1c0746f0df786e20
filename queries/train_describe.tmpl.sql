{{- /* train_describe: column names and types of a source. Data: .From. No parameters of its own. */ -}}
DESCRIBE SELECT * FROM {{.From}} __sqlnb_row

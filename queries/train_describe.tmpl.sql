{{- /* train_describe: column names and types of a source. Data (queries.Source): .From. No parameters of its own. */ -}}
DESCRIBE SELECT * FROM {{.From}} __sqlnb_row

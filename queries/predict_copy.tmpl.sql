{{- /*
predict_copy: writes predict_select's rows to a file, whole: DuckDB writes it to the path bound last, which
sqlnb renames over --output once complete (so no temporary file of DuckDB's own).
Data (queries.PredictCopy): .Select (predict_select), .Path (the number of the path's parameter), .Format
(parquet, csv or json) and .Options (COPY's options after the format, from sqlnb's table by extension: ""
or ", ARRAY true", ", DELIMITER '\t'", ", COMPRESSION gzip", ...). Parameters: the source's, then the path.
*/ -}}
COPY ({{.Select}}) TO ${{.Path}} (FORMAT {{.Format}}{{.Options}}, USE_TMP_FILE false)

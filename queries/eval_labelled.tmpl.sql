{{- /*
eval_labelled: the number of rows of the source with a label (what an evaluation scores), to tell how many of
them had NULL scores (lda, qda, logistic with a missing value) and were left out of the metrics. One scan of
the label column.
Data (queries.Labelled): .From (the source, binding its own parameters), .Label.
*/ -}}
SELECT count(*) FROM {{.From}} __sqlnb_row WHERE {{ident .Label}} IS NOT NULL

{{- /*
eval_labelled: the numbers of rows of the source with a label (what an evaluation scores) and without one
(left out), to tell how many labelled rows had NULL scores (lda, qda, logistic with a missing value) and were
left out of the metrics, and how many rows had no label. One scan of the label column.
Data: .From (the source, binding its own parameters), .Label.
*/ -}}
SELECT count({{ident .Label}}), count(*) - count({{ident .Label}}) FROM {{.From}} t

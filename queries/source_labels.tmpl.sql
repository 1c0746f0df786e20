{{- /*
source_labels: the labelled rows of a source, their number of classes and the smallest class (as text): the
checks a training makes, before cross-validation fits a model per fold.
Data (queries.Labelled): .From (the source, binding its own parameters), .Label.
*/ -}}
SELECT count(*), count(DISTINCT {{ident .Label}}), min(CAST({{ident .Label}} AS VARCHAR)) FROM {{.From}} __sqlnb_row WHERE {{ident .Label}} IS NOT NULL

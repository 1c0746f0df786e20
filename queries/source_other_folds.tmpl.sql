{{- /*
source_other_folds: the rows of a source outside one cross-validation fold, as a FROM-clause item (for
models fitted per fold: logistic regression). The fold expression is evaluated over the source row __sqlnb_row, as in
the training templates.
Data (queries.OtherFolds): .From (the source's FROM item, with its own bound parameters), .Fold (the fold expression),
.Param (the number of the parameter that binds the fold to leave out).
*/ -}}
(SELECT * EXCLUDE (__sqlnb_fold) FROM (SELECT *, {{.Fold}} AS __sqlnb_fold FROM {{.From}} __sqlnb_row) WHERE __sqlnb_fold <> ${{.Param}})

{{- /*
compare_subset: the training set of one point of a learning curve, as a query source: the first .Size rows
of the training pool of compare_split's table (__sqlnb_u ≥ the test fraction), in __sqlnb_u order.
Data: .Table, .Fraction, .Size (numbers sqlnb computed).
*/ -}}
SELECT * EXCLUDE (__sqlnb_u) FROM {{ident .Table}} WHERE __sqlnb_u >= {{.Fraction}} ORDER BY __sqlnb_u LIMIT {{.Size}}

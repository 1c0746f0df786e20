{{- /*
compare_subset: the training set of one point of a learning curve, as a query source: the first .Size rows
of the training pool of compare_split's table (ranks 1..Size).
Data (queries.CompareSubset): .Table, .Size (an integer sqlnb computed; the text becomes a query source, which binds no parameters).
*/ -}}
SELECT * EXCLUDE (__sqlnb_u, __sqlnb_test, __sqlnb_rank) FROM {{ident .Table}} WHERE NOT __sqlnb_test AND __sqlnb_rank <= {{.Size}}

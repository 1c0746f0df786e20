{{- /*
compare_test_rows: the held-out rows of compare_split's table, each once per model of the comparison
(__sqlnb_model = 0..Models-1), as a FROM item: every model scores every test row in one scan.
Data (queries.CompareTestRows): .Table, .Models (an integer sqlnb computed).
*/ -}}
(SELECT t.* EXCLUDE (__sqlnb_u, __sqlnb_test, __sqlnb_rank), g.i AS __sqlnb_model FROM {{ident .Table}} t, range({{.Models}}) g(i) WHERE t.__sqlnb_test)

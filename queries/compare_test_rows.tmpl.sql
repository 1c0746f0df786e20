{{- /*
compare_test_rows: the held-out rows of compare_split's table (__sqlnb_u < the test fraction), each once per
model of the comparison (__sqlnb_model = 0..Models-1), as a FROM item: every model scores every test row in
one scan.
Data: .Table, .Fraction, .Models (numbers sqlnb computed).
*/ -}}
(SELECT t.* EXCLUDE (__sqlnb_u), g.i AS __sqlnb_model FROM {{ident .Table}} t, range({{.Models}}) g(i) WHERE t.__sqlnb_u < {{.Fraction}})

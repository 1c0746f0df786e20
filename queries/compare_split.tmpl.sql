{{- /*
compare_split: copies a source into a temporary table with one more column, __sqlnb_u: a uniform number in
[0, 1) from the hash of the whole row and a seed. Rows with __sqlnb_u < the test fraction are held out for
testing; the others, in __sqlnb_u order, are the training pool whose first n rows train a model of size n
(so the training sets of a learning curve are nested).
Data: .Table (the temporary table's name), .From (the source's FROM item). Parameters: the source's, then
the seed ($n, .Seed the number n).
*/ -}}
CREATE OR REPLACE TEMP TABLE {{ident .Table}} AS
SELECT *, (hash(t, ${{.Seed}}) % 1000000007) / 1000000007.0 AS __sqlnb_u FROM {{.From}} t

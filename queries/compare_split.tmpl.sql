{{- /*
compare_split: copies a source into a temporary table with three more columns: __sqlnb_u, a uniform number
in [0, 1) from the hash of the whole row and a seed; __sqlnb_test, true for the rows held out for testing
(__sqlnb_u below the test fraction); __sqlnb_rank, the row's position in __sqlnb_u order among the test rows
or among the training pool. A model of size n is trained on the pool's ranks 1..n, so the training sets of
a learning curve are nested.
Data (queries.CompareSplit): .Table (the temporary table's name), .From (the source's FROM item), .Seed and .Fraction (the numbers
of the parameters that bind the seed and the test fraction). Parameters: the source's, then those two.
*/ -}}
CREATE OR REPLACE TEMP TABLE {{ident .Table}} AS
SELECT *, __sqlnb_u < ${{.Fraction}} AS __sqlnb_test,
       row_number() OVER (PARTITION BY __sqlnb_u < ${{.Fraction}} ORDER BY __sqlnb_u) AS __sqlnb_rank
FROM (SELECT *, (hash(__sqlnb_row, ${{.Seed}}) % 1000000007) / 1000000007.0 AS __sqlnb_u FROM {{.From}} __sqlnb_row)

-- A script for `sqlnb shell`: statements end with ';', dot commands start a line.
.mode markdown
SELECT party, count(*) AS members
FROM 'testdata/housevotes84/test.parquet'
GROUP BY party ORDER BY party;
.mode csv
SELECT nb_predict('votes', t) AS predicted, count(*) AS n
FROM 'testdata/housevotes84/test.parquet' t GROUP BY ALL ORDER BY ALL;

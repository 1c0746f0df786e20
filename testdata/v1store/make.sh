#!/usr/bin/env bash
# Writes v1.duckdb.gz, votes_v1.json and expected_jll.csv with sqlnb format version 1 (commit 9e04009).
# Usage: B=/path/to/v1/bin/sqlnb bash make.sh
set -euo pipefail
cd "$(dirname "$0")"
B=${B:?set B to a sqlnb binary built at commit 9e04009}
F=../fixtures
rm -f v1.duckdb v1.duckdb.wal
$B --db v1.duckdb train --model votes --label party --from ../housevotes84/train.csv
$B --db v1.duckdb train --model iris_w --label label --from "SELECT * EXCLUDE (id, p_setosa, p_versicolor, p_virginica, predicted) FROM '$F/sklearn_iris_weighted.csv'" --weight weight
$B --db v1.duckdb train --model iris_pooled --label label --from "SELECT * EXCLUDE (id, weight, p_setosa, p_versicolor, p_virginica, predicted) FROM '$F/sklearn_iris_weighted.csv'" --variance pooled --priors "setosa=0.2,versicolor=0.3,virginica=0.5"
$B --db v1.duckdb train --model digits_mn --label label --from "SELECT * EXCLUDE (id) FROM '$F/digits.csv'" --kind multinomial --alpha 0.5
$B --db v1.duckdb train --model digits_cnb --label label --from "SELECT * EXCLUDE (id) FROM '$F/digits.csv'" --kind complement --norm
$B --db v1.duckdb train --model digits_bern --label label --from "SELECT * EXCLUDE (id) FROM '$F/digits.csv'" --kind bernoulli --binarize 8
$B --db v1.duckdb train --model news --label topic --from "SELECT topic, text FROM '../reuters/reuters.csv'" --kind text --ngrams 2 --stop-words english
$B --db v1.duckdb train --model news_bern --label topic --from "SELECT topic, text FROM '../reuters/reuters.csv'" --kind text_bernoulli
$B --db v1.duckdb train --model mixed --label party --from "SELECT party, \"physician-fee-freeze\", \"el-salvador-aid\" = 'y' AS salvador, length(\"crime\") AS crime_len FROM '../housevotes84/train.csv'" --feature-kind salvador=bernoulli
$B --db v1.duckdb models set votes --alpha 0.25
$B --db v1.duckdb models export votes --output votes_v1.json
$B --db v1.duckdb sql -c "
COPY (
 WITH
 v AS (SELECT row_number() OVER () AS i, * FROM '../housevotes84/train.csv' LIMIT 40),
 ir AS (SELECT id AS i, * EXCLUDE (id) FROM '$F/sklearn_iris_weighted.csv' WHERE id % 5 = 0),
 d AS (SELECT id AS i, * EXCLUDE (id) FROM '$F/digits.csv' WHERE id % 50 = 0),
 r AS (SELECT id::INT AS i, topic, text FROM '../reuters/reuters.csv' WHERE id::INT % 3 = 0),
 mx AS (SELECT row_number() OVER () AS i, party, \"physician-fee-freeze\", \"el-salvador-aid\" = 'y' AS salvador, length(\"crime\") AS crime_len FROM '../housevotes84/train.csv' LIMIT 40),
 s AS (
  SELECT 'votes' AS model, i, nb_joint_log_likelihood('votes', v) AS j FROM v
  UNION ALL SELECT 'iris_w', i, nb_joint_log_likelihood('iris_w', ir) FROM ir
  UNION ALL SELECT 'iris_pooled', i, nb_joint_log_likelihood('iris_pooled', ir) FROM ir
  UNION ALL SELECT 'digits_mn', i, nb_joint_log_likelihood('digits_mn', d) FROM d
  UNION ALL SELECT 'digits_cnb', i, nb_joint_log_likelihood('digits_cnb', d) FROM d
  UNION ALL SELECT 'digits_bern', i, nb_joint_log_likelihood('digits_bern', d) FROM d
  UNION ALL SELECT 'news', i, nb_joint_log_likelihood('news', r) FROM r
  UNION ALL SELECT 'news_bern', i, nb_joint_log_likelihood('news_bern', r) FROM r
  UNION ALL SELECT 'mixed', i, nb_joint_log_likelihood('mixed', mx) FROM mx)
 SELECT model, i AS row, e.key AS class, e.value AS jll FROM (SELECT model, i, unnest(map_entries(j)) AS e FROM s) ORDER BY model, row, class
) TO 'expected_jll.csv' (HEADER)" >/dev/null
gzip -9 -f v1.duckdb

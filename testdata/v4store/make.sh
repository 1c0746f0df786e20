#!/usr/bin/env bash
# Writes v4.duckdb.gz, expected_params.csv and expected_jll.csv with sqlnb format version 4 (commit 7b27283,
# the last release that kept each hyperparameter in a column of nb.models): models of every family with
# hyperparameters away from their defaults, so the format-5 upgrade (one params JSON column) is checked on all.
# Usage: B=/path/to/7b27283/sqlnb bash make.sh   (git worktree add /tmp/v4 7b27283 && go build -C /tmp/v4 -o sqlnb ./cmd/sqlnb)
set -euo pipefail
cd "$(dirname "$0")"
B=${B:?set B to a sqlnb binary built at commit 7b27283}
F=../fixtures
IRIS="SELECT * EXCLUDE (id, weight, p_setosa, p_versicolor, p_virginica, predicted) FROM '$F/sklearn_iris_weighted.csv'"
DIG="SELECT * EXCLUDE (id) FROM '$F/digits.csv'"
rm -f v4.duckdb v4.duckdb.wal
$B --db v4.duckdb train --model votes --label party --from ../housevotes84/train.csv --alpha 0.5 --threshold 0.001 --eps 0.0001
$B --db v4.duckdb train --model iris_sample --label label --from "$IRIS" --variance sample --var-smoothing 1e-6 --priors smoothed --alpha 3
$B --db v4.duckdb train --model iris_given --label label --from "$IRIS" --variance pooled --priors "setosa=0.2,versicolor=0.3,virginica=0.5"
$B --db v4.duckdb train --model digits_mn --label label --from "$DIG" --kind multinomial --alpha 0.25
$B --db v4.duckdb train --model digits_cnb --label label --from "$DIG" --kind complement --norm
$B --db v4.duckdb train --model news --label topic --from "SELECT topic, text FROM '../reuters/reuters.csv'" --kind text --min-df 2 --max-features 300
$B --db v4.duckdb train --model counts_pois --label label --from "SELECT * EXCLUDE (id, weight) FROM '$F/poisson_train.csv'" --kind poisson --threshold 0.01
$B --db v4.duckdb train --model iris_lda --label label --from "$IRIS" --kind lda --shrinkage 0.2
$B --db v4.duckdb train --model iris_qda --label label --from "$IRIS" --kind qda --reg-param 0.1
$B --db v4.duckdb train --model iris_lr --label label --from "$IRIS" --kind logistic --C 0.5 --tol 1e-9 --max-iter 50
$B --db v4.duckdb models set votes --alpha 0.25
$B --db v4.duckdb sql --format csv -c "SELECT name, alpha, var_smoothing, variance, priors, norm, min_df, max_features, threshold, eps,
  reg_param, solver, shrinkage, c, penalty, tol, max_iter, format_version FROM nb.models ORDER BY name" > expected_params.csv
$B --db v4.duckdb sql -c "
COPY (
 WITH
 v AS (SELECT row_number() OVER () AS i, * FROM '../housevotes84/train.csv' LIMIT 40),
 ir AS (SELECT id AS i, * EXCLUDE (id) FROM '$F/sklearn_iris_weighted.csv' WHERE id % 5 = 0),
 d AS (SELECT id AS i, * EXCLUDE (id) FROM '$F/digits.csv' WHERE id % 50 = 0),
 r AS (SELECT id::INT AS i, topic, text FROM '../reuters/reuters.csv' WHERE id::INT % 3 = 0),
 p AS (SELECT id AS i, * EXCLUDE (id) FROM '$F/poisson_train.csv' WHERE id % 4 = 0),
 s AS (
  SELECT 'votes' AS model, i, nb_joint_log_likelihood('votes', v) AS j FROM v
  UNION ALL SELECT 'iris_sample', i, nb_joint_log_likelihood('iris_sample', ir) FROM ir
  UNION ALL SELECT 'iris_given', i, nb_joint_log_likelihood('iris_given', ir) FROM ir
  UNION ALL SELECT 'digits_mn', i, nb_joint_log_likelihood('digits_mn', d) FROM d
  UNION ALL SELECT 'digits_cnb', i, nb_joint_log_likelihood('digits_cnb', d) FROM d
  UNION ALL SELECT 'news', i, nb_joint_log_likelihood('news', r) FROM r
  UNION ALL SELECT 'counts_pois', i, nb_joint_log_likelihood('counts_pois', p) FROM p
  UNION ALL SELECT 'iris_lda', i, nb_joint_log_likelihood('iris_lda', ir) FROM ir
  UNION ALL SELECT 'iris_qda', i, nb_joint_log_likelihood('iris_qda', ir) FROM ir
  UNION ALL SELECT 'iris_lr', i, nb_joint_log_likelihood('iris_lr', ir) FROM ir)
 SELECT model, i AS row, e.key AS class, e.value AS jll FROM (SELECT model, i, unnest(map_entries(j)) AS e FROM s) ORDER BY model, row, class
) TO 'expected_jll.csv' (HEADER)" >/dev/null
gzip -9 -f v4.duckdb

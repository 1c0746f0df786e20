// Package sqlnb is a naive Bayes classifier family whose training runs as SQL aggregations inside DuckDB
// and whose scoring kernels are plain Go over column slices.
//
// A Model is plain data: the raw sufficient statistics of its training set (class counts, per-class
// counts, means and M2 of Gaussian features, per-class value counts of categorical and Bernoulli
// features) plus hyperparameters (Params) that are applied only when the model is compiled into a
// Scorer. Smoothing, variance mode and priors can therefore change without retraining, and two models
// over the same features can be merged exactly.
//
// The math follows the lecture notes in shared/seeds: seed 000 (categorical and Gaussian NB, additive
// smoothing, shared variance), seed 001 (estimators), seed 004 (missing values, log-sum-exp).
//
// This package depends on database/sql only; the DuckDB functions that call it live in package udf.
package sqlnb

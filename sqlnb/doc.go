// Package sqlnb is a naive Bayes classifier family whose training runs as SQL aggregations inside DuckDB
// and whose scoring kernels are plain Go over column slices.
//
// A Model is plain data: the raw sufficient statistics of its training set (class counts, per-class
// counts, means and M2 of Gaussian features, per-class value counts of categorical and Bernoulli
// features) plus hyperparameters (Params) that are applied only when the model is compiled into a
// Scorer. Smoothing, variance mode and priors can therefore change without retraining, and two models
// over the same features can be merged exactly.
//
// The math follows five sets of lecture notes on generative classification, which comments and tests cite
// as seeds 000 to 004:
//   - seed 000: D. Hosseini, "Generative Classification & Naïve Bayes", Machine Learning, University College
//     London — categorical and Gaussian naive Bayes, additive smoothing, shared variances and the link to
//     logistic regression;
//   - seed 001: A. Tendulkar, "Naive Bayes Classifier", Machine Learning Techniques, IIT Madras — the
//     maximum-likelihood estimators, Bernoulli and multinomial naive Bayes;
//   - seed 002: "Discriminative and generative modeling" (course notes: generative models, naive Bayes and its
//     linear decision boundary, linear discriminant analysis as Gaussian naive Bayes);
//   - seed 003: M. Girolami, Machine Learning lecture 8, "Classification", University of Glasgow —
//     generative classifiers against discriminant functions;
//   - seed 004: P. F. Palamara, Statistical Machine Learning, University of Oxford — LDA, QDA, logistic
//     regression, and the naive Bayes classifier with missing values (a missing feature is marginalised: it
//     adds nothing to b_c, and its denominators count non-missing values only: the voter example, 103/157)
//     and log-sum-exp normalisation.
//
// Everything a reader needs is restated where it is used: each Family's file and its doc comments give the
// formula and the edge rules (NULL, unseen value, zero variance, empty class), and the tests say where each
// expected number came from.
//
// Start with Train (or the SQL function nb_train), then Load and Compile a model into a Scorer, and score
// with Scorer.ScoreRow (one row from Go), Scorer.BatchOf and JointLogLikelihood (many), or the nb_* SQL
// functions of package udf; Evaluate and CrossValidate measure a model inside DuckDB. The examples show each.
//
// This package depends on database/sql only; the DuckDB functions that call it live in package udf.
package sqlnb

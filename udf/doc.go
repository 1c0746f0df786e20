// Package udf registers sqlnb's DuckDB functions (nb_predict, nb_predict_proba, nb_train, ...) on the
// connections it opens, through DuckDB's C API (duckdb-go's public mapping package and cgo callbacks).
//
// Scalar functions bind once per query: the model name must be a constant; the model is loaded (or taken
// from a cache keyed by its generation and hyperparameters), compiled, and its features are matched to
// the STRUCT fields by name (or to positional arguments in training order). Execution reads DuckDB's
// vectors in place and runs sqlnb's column kernels; labels and maps are written straight into the output
// vectors.
//
// nb_predict returns the label column's type (BOOLEAN, the integer types, FLOAT, DOUBLE, VARCHAR; other
// label types as text): DuckDB's C API fixes a scalar function's return type when it is registered, so
// the binder sets it on the function being bound (setReturnType explains how and how it is checked). The
// MAP keys of nb_predict_proba stay VARCHAR for every model.
//
// Binders and table functions query the model store on a dedicated internal connection pool: running a
// query on the caller's own connection from inside a binder deadlocks.
//
// The math is package sqlnb's (its documentation cites the lecture notes it follows); this package only
// moves values between DuckDB's vectors and sqlnb's column kernels.
package udf

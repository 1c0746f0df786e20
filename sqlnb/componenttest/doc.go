// Package componenttest holds the conformance suite every model family must pass (conformance_test.go): for
// every kind in the registry, alone and in mixed models, the vector kernel, the row reference, nb_explain,
// the SQL scoring functions and the SQL export agree; merged and fold models equal direct training; SQL
// training equals a plain-Go reference; outputs stay finite and sum to 1 on NULL, NaN, ±Inf, unseen values,
// empty documents, α = 0, weights and magnitudes up to 1e300. A kind without a case here fails
// TestEveryKindHasACase.
package componenttest

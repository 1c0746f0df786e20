package sqlnb

import "errors"

// Sentinel errors; wrapped errors add the model, column and what to do, and match with errors.Is.
var (
	// ErrUnknownModel: no model of that name is stored.
	ErrUnknownModel = errors.New("unknown model")
	// ErrUnknownColumn: a named column is not in the source.
	ErrUnknownColumn = errors.New("unknown column")
	// ErrNoRows: the training source has no row with a non-NULL label.
	ErrNoRows = errors.New("no training rows")
	// ErrOneClass: the training source has a single class.
	ErrOneClass = errors.New("only one class")
	// ErrBadValue: the training data holds a value the model cannot use (infinite, negative weight...).
	ErrBadValue = errors.New("bad value")
	// ErrBadType: a column's type does not fit the distribution asked for.
	ErrBadType = errors.New("bad type")
	// ErrBadOption: an option (kind, priors, alpha...) is malformed or out of range.
	ErrBadOption = errors.New("bad option")
	// ErrInvalidModel: stored or imported model data is inconsistent.
	ErrInvalidModel = errors.New("invalid model")
	// ErrNotExportable: a model's family cannot be written as plain SQL.
	ErrNotExportable = errors.New("not exportable to SQL")
	// ErrNotMergeable: a model's parameters are fitted (logistic regression), not sums: models of disjoint
	// rows cannot be merged.
	ErrNotMergeable = errors.New("not mergeable")
	// ErrSingular: a covariance or Hessian is singular (constant or collinear features, separable classes).
	ErrSingular = errors.New("singular")
	// ErrSeparable: the classes are linearly separable in the training data, so unregularised logistic
	// regression has no optimum.
	ErrSeparable = errors.New("linearly separable")
	// ErrNotConverged: an iterative fit reached its iteration limit.
	ErrNotConverged = errors.New("did not converge")
)

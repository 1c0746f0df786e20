package nb

import "errors"

// Sentinel errors; wrapped errors add the model, column and what to do, and match with errors.Is.
var (
	// ErrUnknownModel: no model of that name is stored.
	ErrUnknownModel = errors.New("unknown model")
	// ErrModelExists: a model of that name is stored and replacing it was not asked for.
	ErrModelExists = errors.New("model exists")
	// ErrUnknownColumn: a named column is not in the source.
	ErrUnknownColumn = errors.New("unknown column")
	// ErrNoRows: the source has no row to train on or evaluate (no non-NULL label; with lda, qda and
	// logistic, no row without a missing value).
	ErrNoRows = errors.New("no rows")
	// ErrOneClass: the training source has a single class.
	ErrOneClass = errors.New("only one class")
	// ErrTooManyClasses: the label has more than MaxClasses classes and training was not forced.
	ErrTooManyClasses = errors.New("too many classes")
	// ErrBadValue: the training data holds a value the model cannot use (infinite, negative weight...).
	ErrBadValue = errors.New("bad value")
	// ErrBadType: a column's type does not fit the distribution asked for.
	ErrBadType = errors.New("bad type")
	// ErrBadOption: an option (kind, priors, alpha...) is malformed or out of range.
	ErrBadOption = errors.New("bad option")
	// ErrPosLabel: the positive class asked for is not a class of a two-class model.
	ErrPosLabel = errors.New("bad positive class")
	// ErrInvalidModel: stored or imported model data is inconsistent.
	ErrInvalidModel = errors.New("invalid model")
	// ErrConflict: another writer kept changing the same model at the same time.
	ErrConflict = errors.New("write conflict")
	// ErrNotExportable: a model's family cannot be written as plain SQL.
	ErrNotExportable = errors.New("not exportable to SQL")
	// ErrNotMergeable: a model's parameters are fitted (logistic regression), not sums: models of disjoint
	// rows cannot be merged.
	ErrNotMergeable = errors.New("not mergeable")
	// ErrCannotForget: the rows to forget are not part of the model as trained (a count or weight would fall
	// below zero, a variance below zero beyond rounding, a class or value the model never counted).
	ErrCannotForget = errors.New("cannot forget")
	// ErrSingular: a covariance or Hessian is singular (constant or collinear features, separable classes).
	ErrSingular = errors.New("singular")
	// ErrSeparable: the classes are linearly separable in the training data, so unregularised logistic
	// regression has no optimum.
	ErrSeparable = errors.New("linearly separable")
	// ErrNotConverged: an iterative fit reached its iteration limit.
	ErrNotConverged = errors.New("did not converge")
	// ErrIncompleteRow: ScoreRow was given a row that misses a value the model requires (lda, qda and logistic
	// score complete rows only: NULL, or NaN or ±Inf for a number); the SQL functions give NULL for it.
	ErrIncompleteRow = errors.New("incomplete row")
)

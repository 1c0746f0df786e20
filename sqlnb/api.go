package sqlnb

import (
	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/counts"
	"github.com/sqlnb/sqlnb/sqlnb/family/discriminant"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/family/logistic"
	"github.com/sqlnb/sqlnb/sqlnb/family/poisson"
	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The vocabulary of a Go user, defined in package nb (which the families share) and named here so that a
// program needs only this package.
type (
	// Model is a trained model: its kind, hyperparameters, classes, features and statistics tables.
	Model = nb.Model
	// Params are a model's hyperparameters.
	Params = nb.Params
	// Kind names a model kind ("gaussian", "multinomial", ...).
	Kind = nb.Kind
	// Feature is one input column of a model.
	Feature = nb.Feature
	// Class is one class of a model with its training count.
	Class = nb.Class
	// TextOptions say how a text column is split into terms.
	TextOptions = nb.TextOptions
	// DB is what sqlnb runs its statements on: a *sql.DB or a *sql.Conn of a DuckDB connection.
	DB = nb.DB
)

// ParamSpecs lists the hyperparameters the families declare, in the order help and nb_show list them.
func ParamSpecs() []nb.ParamSpec { return families.ParamSet().Specs() }

// DefaultParams returns the hyperparameters a model gets when none are given.
func DefaultParams() Params { return families.DefaultParams() }

// The kinds of model.
const (
	Gaussian       = gaussian.Gaussian
	Poisson        = poisson.Poisson
	Categorical    = categorical.Categorical
	Bernoulli      = categorical.Bernoulli
	Multinomial    = counts.Multinomial
	Complement     = counts.Complement
	Text           = text.Text
	TextBernoulli  = text.TextBernoulli
	TextComplement = text.TextComplement
	LDA            = discriminant.LDA
	QDA            = discriminant.QDA
	Logistic       = logistic.Logistic
)

// The values of Params' enumerated fields.
const (
	VarianceClass  = nb.VarianceClass
	VariancePooled = nb.VariancePooled
	VarianceSample = nb.VarianceSample
	PriorsFit      = nb.PriorsFit
	PriorsSmoothed = nb.PriorsSmoothed
	PriorsUniform  = nb.PriorsUniform
	PriorsGiven    = nb.PriorsGiven
	SolverSVD      = nb.SolverSVD
	SolverLSQR     = nb.SolverLSQR
	PenaltyL2      = nb.PenaltyL2
	PenaltyNone    = nb.PenaltyNone
)

// The errors sqlnb's functions wrap; test for them with errors.Is.
var (
	ErrUnknownModel   = nb.ErrUnknownModel
	ErrModelExists    = nb.ErrModelExists
	ErrUnknownColumn  = nb.ErrUnknownColumn
	ErrNoRows         = nb.ErrNoRows
	ErrOneClass       = nb.ErrOneClass
	ErrTooManyClasses = nb.ErrTooManyClasses
	ErrBadValue       = nb.ErrBadValue
	ErrBadType        = nb.ErrBadType
	ErrBadOption      = nb.ErrBadOption
	ErrPosLabel       = nb.ErrPosLabel
	ErrInvalidModel   = nb.ErrInvalidModel
	ErrConflict       = nb.ErrConflict
	ErrNotExportable  = nb.ErrNotExportable
	ErrNotMergeable   = nb.ErrNotMergeable
	ErrCannotForget   = nb.ErrCannotForget
	ErrSingular       = nb.ErrSingular
	ErrSeparable      = nb.ErrSeparable
	ErrNotConverged   = nb.ErrNotConverged
	ErrIncompleteRow  = nb.ErrIncompleteRow
	ErrBeyondClass    = nb.ErrBeyondClass
	ErrNotFinite      = nb.ErrNotFinite
)

package discriminant

import (
	"errors"
	"fmt"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The hyperparameters of discriminant analysis.
var (
	regParam = nb.ParamSpec{Name: "reg_param", Type: nb.ParamFloat, Default: 0.0, Check: unitInterval, Kinds: []nb.Kind{QDA},
		Help: "qda: regularise each class covariance towards the identity, (1 - r) Σ + r I (scikit-learn's reg_param)"}
	solver = nb.ParamSpec{Name: "solver", Type: nb.ParamEnum, Default: nb.SolverSVD, Values: []string{nb.SolverSVD, nb.SolverLSQR},
		Kinds: []nb.Kind{LDA},
		Help:  "lda: svd (pooled covariance, n - K; the default) or lsqr (prior-weighted class covariances, with shrinkage)"}
	shrinkage = nb.ParamSpec{Name: "shrinkage", Type: nb.ParamFloat, Default: 0.0, Check: unitInterval, Kinds: []nb.Kind{LDA},
		Help: "lda: shrinkage in [0, 1] towards a scaled identity (implies solver lsqr; scikit-learn's shrinkage)"}
)

func unitInterval(v any) error {
	if f := v.(float64); !(f >= 0 && f <= 1) {
		return errors.New("must be in [0, 1]")
	}
	return nil
}

// Params lists the family's hyperparameters (nb.ParamDeclarer).
func (DiscriminantFamily) Params() []nb.ParamSpec { return []nb.ParamSpec{regParam, solver, shrinkage} }

// CheckParams refuses a shrinkage with solver svd, as scikit-learn does (nb.ParamChecker).
func (DiscriminantFamily) CheckParams(p nb.Params) error {
	if p.Text("solver") == nb.SolverSVD && p.Float("shrinkage") != 0 {
		return fmt.Errorf("%w: shrinkage %v with solver svd: shrinkage needs solver lsqr (as scikit-learn)", nb.ErrBadOption, p.Float("shrinkage"))
	}
	return nil
}

// AdjustParams makes a given shrinkage imply solver lsqr, and a given solver svd drop the shrinkage
// (nb.ParamAdjuster).
func (DiscriminantFamily) AdjustParams(p nb.Params, given map[string]bool) nb.Params {
	if given["shrinkage"] && !given["solver"] {
		p = p.With("solver", nb.SolverLSQR)
	}
	if given["solver"] && p.Text("solver") == nb.SolverSVD && !given["shrinkage"] {
		p = p.With("shrinkage", 0.0)
	}
	return p
}

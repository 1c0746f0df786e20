package logistic

import (
	"fmt"
	"math"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The hyperparameters of logistic regression: they shape the fit (Fitted), so changing one means training
// again.
var (
	cParam = nb.ParamSpec{Name: "c", FlagName: "C", Type: nb.ParamFloat, Default: 1.0, Fitted: true,
		Check: func(v any) error {
			if f := v.(float64); !(f > 0) || math.IsInf(f, 1) {
				return fmt.Errorf("must be a finite number > 0")
			}
			return nil
		},
		Help: "logistic: inverse L2 penalty strength (scikit-learn's C; intercepts are not penalised)"}
	penalty = nb.ParamSpec{Name: "penalty", Type: nb.ParamEnum, Default: nb.PenaltyL2, Values: []string{nb.PenaltyL2, nb.PenaltyNone},
		Fitted: true, Help: "logistic: l2 (the default) or none"}
)

// Params lists the family's hyperparameters (nb.ParamDeclarer).
func (LogisticFamily) Params() []nb.ParamSpec {
	return []nb.ParamSpec{cParam, penalty, nb.TolParam, nb.MaxIterParam}
}

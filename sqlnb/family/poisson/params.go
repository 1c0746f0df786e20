package poisson

import "github.com/sqlnb/sqlnb/sqlnb/nb"

// Params lists the family's hyperparameters (nb.ParamDeclarer): e1071's rule.
func (PoissonFamily) Params() []nb.ParamSpec { return []nb.ParamSpec{nb.ThresholdParam, nb.EpsParam} }

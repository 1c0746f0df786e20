package categorical

import "github.com/sqlnb/sqlnb/sqlnb/nb"

// Params lists the family's hyperparameters (nb.ParamDeclarer): smoothing and e1071's rule.
func (CategoricalFamily) Params() []nb.ParamSpec {
	return []nb.ParamSpec{nb.AlphaParam, nb.ThresholdParam, nb.EpsParam}
}

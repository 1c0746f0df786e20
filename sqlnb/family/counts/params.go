package counts

import "github.com/sqlnb/sqlnb/sqlnb/nb"

// Params lists the family's hyperparameters (nb.ParamDeclarer): smoothing, and norm for complement.
func (CountsFamily) Params() []nb.ParamSpec {
	norm := nb.NormParam
	norm.Kinds = []nb.Kind{Complement}
	return []nb.ParamSpec{nb.AlphaParam, norm}
}

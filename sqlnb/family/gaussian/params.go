package gaussian

import "github.com/sqlnb/sqlnb/sqlnb/nb"

// The hyperparameters of Gaussian features.
var (
	varSmoothing = nb.ParamSpec{Name: "var_smoothing", Type: nb.ParamFloat, Default: 1e-9, Check: nb.FiniteNonNegative,
		Help: "Gaussian variance floor ε = var_smoothing × the largest feature variance (≥ 0; scikit-learn's GaussianNB rule)"}
	variance = nb.ParamSpec{Name: "variance", Type: nb.ParamEnum, Default: nb.VarianceClass,
		Values: []string{nb.VarianceClass, nb.VariancePooled, nb.VarianceSample},
		Help:   "Gaussian variance: class (one per class), pooled (shared by the classes) or sample (per class, n - 1 as R)"}
)

// Params lists the family's hyperparameters (nb.ParamDeclarer).
func (GaussianFamily) Params() []nb.ParamSpec {
	return []nb.ParamSpec{varSmoothing, variance, nb.ThresholdParam, nb.EpsParam}
}

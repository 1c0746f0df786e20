package text

import (
	"errors"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The vocabulary limits of text features.
var (
	minDF = nb.ParamSpec{Name: "min_df", Type: nb.ParamInt, Default: int64(0), Check: nonNegative,
		Help: "text features: keep terms found in at least this many training documents"}
	maxFeatures = nb.ParamSpec{Name: "max_features", Type: nb.ParamInt, Default: int64(0), Check: nonNegative,
		Help: "text features: keep only the most frequent terms (0: all)"}
)

func nonNegative(v any) error {
	if v.(int64) < 0 {
		return errors.New("must be ≥ 0")
	}
	return nil
}

// Params lists the family's hyperparameters (nb.ParamDeclarer).
func (TextFamily) Params() []nb.ParamSpec {
	norm := nb.NormParam
	norm.Kinds = []nb.Kind{TextComplement}
	return []nb.ParamSpec{nb.AlphaParam, norm, minDF, maxFeatures}
}

package kde

import (
	"fmt"
	"math"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// The hyperparameters of kernel-density features. Both shape the curves stored at training (Fitted), so
// changing one means training again.
var (
	bandwidthParam = nb.ParamSpec{Name: "bandwidth", Type: nb.ParamText, Default: ruleNRD0, Fitted: true,
		Check: func(v any) error {
			switch rule(v.(string)) {
			case ruleNRD0, ruleNRD, ruleScott:
				return nil
			}
			_, err := parseBandwidth(v.(string))
			return err
		},
		Help: "kde: the kernel's bandwidth, nrd0 (R's default), nrd, scott or a number (before adjust)"}
	adjustParam = nb.ParamSpec{Name: "adjust", Type: nb.ParamFloat, Default: 1.0, Fitted: true,
		Check: func(v any) error {
			if f := v.(float64); !(f > 0) || math.IsInf(f, 1) {
				return fmt.Errorf("must be a finite number > 0")
			}
			return nil
		},
		Help: "kde: the bandwidth is multiplied by adjust (R's density adjust; > 0)"}
)

// rule is a bandwidth parameter's value as Train reads it: a rule's name in lower case, or the number's text.
func rule(v string) string { return strings.ToLower(strings.TrimSpace(v)) }

// Params lists the family's hyperparameters (nb.ParamDeclarer).
func (KDEFamily) Params() []nb.ParamSpec { return []nb.ParamSpec{bandwidthParam, adjustParam} }

// Summary describes the model's kde settings for `sqlnb models show` (nb.Summarizer).
func (KDEFamily) Summary(m *nb.Model) string {
	return fmt.Sprintf("bandwidth %s, adjust %g", rule(m.Params.Text("bandwidth")), m.Params.Float("adjust"))
}

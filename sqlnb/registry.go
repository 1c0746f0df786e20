package sqlnb

import (
	"fmt"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/family/categorical"
	"github.com/sqlnb/sqlnb/sqlnb/family/counts"
	"github.com/sqlnb/sqlnb/sqlnb/family/discriminant"
	"github.com/sqlnb/sqlnb/sqlnb/family/gaussian"
	"github.com/sqlnb/sqlnb/sqlnb/family/kde"
	"github.com/sqlnb/sqlnb/sqlnb/family/logistic"
	"github.com/sqlnb/sqlnb/sqlnb/family/poisson"
	"github.com/sqlnb/sqlnb/sqlnb/family/text"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// families is the registry, in the order training scans run and components are compiled.
var families = nb.Families{gaussian.GaussianFamily{}, poisson.PoissonFamily{}, kde.KDEFamily{}, categorical.CategoricalFamily{}, counts.CountsFamily{}, text.TextFamily{}, discriminant.DiscriminantFamily{}, logistic.LogisticFamily{}}

// Kinds lists every kind in registry order, with its one-line description.
func Kinds() []nb.KindInfo { return families.Kinds() }

// KindsHelp is one line per kind for help texts: "  name  description".
func KindsHelp() string {
	var b strings.Builder
	for _, k := range Kinds() {
		fmt.Fprintf(&b, "  %-16s %s\n", k.Kind, k.Doc)
	}
	return b.String()
}

// KindNames lists the kind names in registry order.
func KindNames() []string { return families.KindNames() }

// ParseKind reads a kind name; "auto" and "" give the empty Kind (chosen from the column type).
func ParseKind(s string) (nb.Kind, error) { return families.ParseKind(s) }

// Validate checks that m is complete and consistent: names, at least two classes, known kinds, the
// families' rules on mixing features, and every statistics row (known feature and class, unique, finite,
// non-negative), complete for every feature. Models that Train, Load and Import return are valid.
func Validate(m *nb.Model) error { return families.Validate(m) }

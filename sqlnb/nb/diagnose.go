package nb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/sqlnb/sqlnb/queries"
)

// Pairs lists the feature pairs j ≤ k of m features, row by row (train_comoments' Pairs).
func Pairs(m int) []queries.Pair {
	var out []queries.Pair
	for j := range m {
		for k := j; k < m; k++ {
			out = append(out, queries.Pair{J: j, K: k})
		}
	}
	return out
}

// discriminantDiagnose names the columns with infinite values, or values so large that their products
// overflow, after the co-moment scan failed or gave a non-finite statistic.
func DiscriminantDiagnose(ctx context.Context, sc *Scan, names []string, cause error) error {
	mf := make([]MomentFeature, len(names))
	for i, n := range names {
		mf[i] = MomentFeature{Name: n}
	}
	counts, err := NonfiniteCounts(ctx, sc, mf)
	if err != nil {
		return fmt.Errorf("%w (and checking for infinity failed: %v)", cause, err)
	}
	infs, huge := counts.Infinite(mf), counts.Huge(mf)
	switch {
	case len(infs) > 0:
		return fmt.Errorf("%w: feature %s holds infinite values: filter them out or replace them with NULL (rows with a missing value are left out)",
			ErrBadValue, strings.Join(infs, ", "))
	case len(huge) > 0:
		return fmt.Errorf("%w: feature %s: values this large make the co-moments overflow a DOUBLE: "+
			"rescale the column (for example divide it by 1e150) and train again", ErrBadValue, strings.Join(huge, ", "))
	}
	return fmt.Errorf("compute co-moments: %w", cause)
}

// conditionOnly drops gonum's mat.Condition from err: gonum returns it, with the result computed, where the
// matrix's condition number exceeds 1e16, which features in different units reach (variances of 1e8 and
// 1e-8) with nothing singular about them. factor's pivots, relative to each feature's variance, are the
// test of singularity, and conditionWarnings says what such a scale costs.
func ConditionOnly(err error) error {
	var c mat.Condition
	if errors.As(err, &c) {
		return nil
	}
	return err
}

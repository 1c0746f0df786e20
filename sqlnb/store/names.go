package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// ModelNames lists the stored models, sorted (none if the store does not exist).
func ModelNames(ctx context.Context, q nb.Querier) ([]string, error) {
	if ok, err := storeExists(ctx, q); err != nil || !ok {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, queries.SQL("store_model_names.sql"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// UnknownModelError returns ErrUnknownModel for name, listing the models that exist.
func UnknownModelError(ctx context.Context, q nb.Querier, name string) error {
	names, _ := ModelNames(ctx, q)
	have := "there are no models yet: train one with nb_train or sqlnb train"
	if len(names) > 0 {
		const shown = 20
		quoted := make([]string, 0, min(len(names), shown+1))
		for _, n := range names[:min(len(names), shown)] {
			quoted = append(quoted, fmt.Sprintf("%q", n))
		}
		if len(names) > shown {
			quoted = append(quoted, fmt.Sprintf("… %d more: sqlnb models list, FROM nb_models()", len(names)-shown))
		}
		have = "models: " + strings.Join(quoted, ", ")
		if near := nearNames(name, names); len(near) > 0 {
			have = "did you mean " + strings.Join(near, " or ") + "? " + have
		}
	}
	return fmt.Errorf("%w %q (%s)", nb.ErrUnknownModel, name, have)
}

// nearNames returns, quoted, the names that differ from name only in case or by at most two edits (a typo),
// closest first, at most three.
func nearNames(name string, names []string) []string {
	type cand struct {
		n string
		d int
	}
	var cs []cand
	lower := strings.ToLower(name)
	for _, n := range names {
		d := editDistance(lower, strings.ToLower(n))
		if d <= min(2, len([]rune(name))/3+1) {
			cs = append(cs, cand{n, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(len(cs), 3)] {
		out = append(out, fmt.Sprintf("%q", c.n))
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, in runes.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}

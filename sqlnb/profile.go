package sqlnb

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// Checks of the columns a model is trained on: a label that looks like an identifier or a measurement, and
// features that look like row identifiers.
const (
	// ProfileRows is how many rows of the source (the first ones) the checks before training read.
	ProfileRows = 10000
	// LabelWarnShare: a label with more distinct values than this share of the labelled rows draws a
	// warning (few rows per class to learn from: an identifier or a measurement rather than a class).
	LabelWarnShare = 0.5
	// MaxClasses: training refuses a label with more classes than this unless forced (TrainSpec.Force).
	MaxClasses = 1000
	// uniqueMinRows: a feature is reported as unique per row only when at least this many rows have a value.
	uniqueMinRows = 20
)

// identifierName matches column names that usually hold identifiers: id, uuid, key, index, row numbers,
// pandas' unnamed index column, and names ending in _id, -id, " id" (or _uuid, _key); identifierCamel matches
// customerId and customerID.
var (
	identifierName  = regexp.MustCompile(`(?i)^(id|uuid|guid|rowid|row_?id|row_?num(ber)?|index|idx|key|pk|unnamed: ?0)$|[_ .-](id|uuid|guid|key)$|^(id|uuid)[_ .-]`)
	identifierCamel = regexp.MustCompile(`[a-z0-9](Id|ID|Uuid|UUID)$`)
)

// excludeHint is how to leave column name out, on the command line and in SQL: --exclude NAME (exclude :=
// ['NAME']). The flag takes a comma-separated list (CSV: a name with a comma, a quote or spaces in double
// quotes), and the shell needs the value quoted when it holds anything but letters, digits and _ . -.
func excludeHint(name string) string {
	flag := name
	if strings.ContainsAny(name, ",\" \t\r\n") || strings.TrimSpace(name) != name {
		flag = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	if strings.IndexFunc(flag, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		flag = "'" + strings.ReplaceAll(flag, "'", `'\''`) + "'"
	}
	return fmt.Sprintf("--exclude %s (exclude := ['%s'])", flag, strings.ReplaceAll(name, "'", "''"))
}

// looksLikeIdentifier reports whether a column name is one identifiers usually have.
func looksLikeIdentifier(name string) bool {
	return identifierName.MatchString(name) || identifierCamel.MatchString(name)
}

// profile runs the checks before training on the first ProfileRows rows of the plan's source: a label with
// more than MaxClasses distinct values there is refused (ErrTooManyClasses) unless force; a feature (of a
// kind that is not text, and an integer or text column: measurements are often all different) whose values all differ is reported, as is
// a feature chosen by default (implicit) whose name is one identifiers usually have.
func profile(ctx context.Context, db nb.Querier, p *nb.Plan, implicit, force bool) ([]string, error) {
	var cols []string
	for _, f := range p.Features {
		// Integer-valued types: HUGEINT, UHUGEINT and DECIMAL(p,0) too (labelTextClass's "integer"), which
		// account numbers are as often as BIGINT.
		if nb.ClassifyType(f.Type) == nb.TypeText || labelTextClass(f.Type) == "integer" {
			if info := families.KindInfo(f.Kind); info != nil && !info.Text {
				cols = append(cols, f.Name)
			}
		}
	}
	stmt, err := queries.Render("train_profile.tmpl.sql", queries.Profile{From: p.Src.From, Label: p.Label.Name,
		Columns: cols, Limit: fmt.Sprintf("$%d", len(p.Src.Args)+1)})
	if err != nil {
		return nil, err
	}
	counts := make([]int64, 2+2*len(cols))
	ptrs := make([]any, len(counts))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	args := append(append([]any{}, p.Src.Args...), int64(ProfileRows))
	if err := db.QueryRowContext(ctx, stmt, args...).Scan(ptrs...); err != nil && err != sql.ErrNoRows {
		return nil, fmt.Errorf("check the label and features: %w", err)
	}
	if classes := counts[1]; classes > MaxClasses && !force {
		return nil, tooManyClasses(p.Label.Name, fmt.Sprintf("at least %d distinct values (in its first %d rows)", classes, ProfileRows))
	}
	unique := map[string]string{}
	for i, name := range cols {
		if n, d := counts[2+2*i], counts[3+2*i]; n >= uniqueMinRows && d == n {
			unique[name] = fmt.Sprintf("has a different value in every row (%d distinct values in %d rows read)", d, n)
		}
	}
	var warnings []string
	for _, f := range p.Features {
		why, ok := unique[f.Name]
		switch {
		case ok && looksLikeIdentifier(f.Name):
			why += " and is named like an identifier"
		case ok:
		case implicit && looksLikeIdentifier(f.Name):
			why = "is named like an identifier"
		default:
			continue
		}
		warnings = append(warnings, fmt.Sprintf("feature %q %s: if it identifies rows it only adds noise; leave it out with %s",
			f.Name, why, excludeHint(f.Name)))
	}
	return warnings, nil
}

// checkClasses applies the label rules to a trained model's classes (exact, unlike profile's first rows):
// more than MaxClasses classes is refused unless force; more than LabelWarnShare of the labelled rows draws
// a warning.
func checkClasses(label string, classes int, rows int64, force bool) ([]string, error) {
	if classes > MaxClasses && !force {
		return nil, tooManyClasses(label, fmt.Sprintf("%d distinct values in %d rows", classes, rows))
	}
	if rows > 0 && float64(classes) > LabelWarnShare*float64(rows) {
		return []string{fmt.Sprintf("label column %q has %d distinct values in %d rows (%.0f%%): each class has few rows to "+
			"learn from; is it the class column (not an identifier or a measurement)?", label, classes, rows, 100*float64(classes)/float64(rows))}, nil
	}
	return nil, nil
}

func tooManyClasses(label, what string) error {
	return fmt.Errorf("%w: label column %q has %s, more than %d classes: a classifier with that many is most likely "+
		"trained on the wrong column (an identifier or a measurement); choose the class column with --label, "+
		"or train anyway with --force (force := true)", nb.ErrTooManyClasses, label, what, MaxClasses)
}

package sqlnb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// classesHave is "class A has" or "classes A, B have" for a sentence about them.
func classesHave(names []string) string {
	if len(names) == 1 {
		return "class " + names[0] + " has"
	}
	return "classes " + strings.Join(names, ", ") + " have"
}

// lostClasses lists the classes of part's rows left out for a missing value that have no complete row, so no
// class of the model (sorted).
func lostClasses(part *nb.Partial, classes []nb.Class) []string {
	var out []string
	for c := range part.IncompleteIn {
		if !slices.ContainsFunc(classes, func(k nb.Class) bool { return k.Label == c }) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// completeRowsOnly reports whether kind k scores and trains on complete rows only (Input.Required): a row
// missing one of its values is left out of training and scores NULL.
func completeRowsOnly(k nb.Kind) bool {
	info := families.KindInfo(k)
	return info != nil && info.CompleteRows
}

// missingReport is what train_missing read: the labelled rows, the rows missing each feature, and the
// classes none of whose rows is complete.
type missingReport struct {
	kind    nb.Kind
	total   int64
	names   []string
	missing []int64
	empty   []string
}

// missingValues reads train_missing for the features of a model of complete rows (lda, qda, logistic: rows
// with a missing value are left out): an empty report when there are none or the query fails.
func missingValues(ctx context.Context, db nb.Querier, p *nb.Plan) missingReport {
	var r missingReport
	var feats []queries.MissingFeature
	for _, f := range p.Features {
		if completeRowsOnly(f.Kind) {
			feats = append(feats, queries.MissingFeature{Name: f.Name, Float: nb.ClassifyType(f.Type) == nb.TypeFloat})
			r.kind, r.names = f.Kind, append(r.names, f.Name)
		}
	}
	if len(feats) == 0 {
		return missingReport{}
	}
	stmt, err := queries.Render("train_missing.tmpl.sql", queries.Missing{From: p.Src.From, Label: p.Label.Name, Features: feats})
	if err != nil {
		return missingReport{}
	}
	rows, err := db.QueryContext(ctx, stmt, p.Src.Args...)
	if err != nil {
		return missingReport{}
	}
	defer rows.Close()
	r.missing = make([]int64, len(feats))
	for rows.Next() {
		var class sql.NullString
		var n, complete int64
		miss := make([]int64, len(feats))
		dst := []any{&class, &n, &complete}
		for i := range miss {
			dst = append(dst, &miss[i])
		}
		if rows.Scan(dst...) != nil {
			return missingReport{}
		}
		r.total += n
		for i := range miss {
			r.missing[i] += miss[i]
		}
		if complete == 0 {
			r.empty = append(r.empty, fmt.Sprintf("%q (%d rows)", class.String, n))
		}
	}
	if rows.Err() != nil {
		return missingReport{}
	}
	return r
}

// problem is the error that explains a failed training: a feature missing in every labelled row, or a class
// without a complete row; nil when the report shows neither.
func (r missingReport) problem() error {
	if r.total == 0 {
		return nil
	}
	for i, name := range r.names {
		if r.missing[i] == r.total {
			return fmt.Errorf("%w: feature %q is missing (NULL or NaN) in all %d labelled rows, and %s leaves out every row with a missing "+
				"value: leave the feature out (--features, --exclude) or fill it in a --from query", nb.ErrNoRows, name, r.total, r.kind)
		}
	}
	if len(r.empty) > 0 {
		return fmt.Errorf("%w: %s no row without a missing value (NULL or NaN), and %s leaves out every row with one: "+
			"missing values by feature: %s; leave those features out (--features, --exclude), fill them, or filter the class out",
			nb.ErrNoRows, classesHave(r.empty), r.kind, r.byFeature())
	}
	return nil
}

// byFeature lists the features with missing values and how many, of how many labelled rows.
func (r missingReport) byFeature() string {
	var parts []string
	for i, name := range r.names {
		if r.missing[i] > 0 {
			parts = append(parts, fmt.Sprintf("%q in %d", name, r.missing[i]))
		}
	}
	return fmt.Sprintf("%s of %d labelled rows", strings.Join(parts, ", "), r.total)
}

package sqlnb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Per-group models (train --by): one model per distinct value of the group columns, from the same single
// statistics scan that trains one model (every scan groups by (group, class) instead of class). A grouped
// Model is the pooled model — its classes and statistics are the exact merge of every group's (Merge), which
// is the model of all training rows — plus one Group per group. Scoring picks the row's group model by its
// group columns; a row whose group was not seen in training, whose group value is NULL, or whose group has
// no model of its own (fewer than two classes, or a model that cannot be compiled) is scored by the pooled
// model.
//
// Rules:
//   - A group column is neither the label, the weight nor a feature; its type is text (VARCHAR, ENUM), an
//     integer or BOOLEAN. Without --features, group columns are not features.
//   - Training rows whose group value is NULL count in the pooled model only.
//   - A group model has the classes seen in its group; the model's other classes get probability 0
//     (log-likelihood -Inf) in that group's rows — what a prior of n_c/n = 0 gives.
//   - Families whose parameters are fitted (logistic regression) are refused: their models do not merge, so
//     there is no exact pooled model; text features are refused too (their vocabulary is pruned per model).

// planBy resolves the group columns of spec.By against the source's columns.
func planBy(cols []nb.Column, label nb.Column, weight string, by []string) ([]nb.Column, error) {
	var out []nb.Column
	for _, name := range by {
		c, ok := nb.FindColumn(cols, name)
		if !ok {
			return nil, fmt.Errorf("%w: group column %q (--by) is not in the source (columns: %s)", nb.ErrUnknownColumn, name, nb.ColumnNames(cols))
		}
		if c.Name == label.Name || c.Name == weight {
			return nil, fmt.Errorf("%w: group column %q (--by) is the label or weight column: group by another column", nb.ErrBadOption, c.Name)
		}
		if slices.ContainsFunc(out, func(o nb.Column) bool { return o.Name == c.Name }) {
			return nil, fmt.Errorf("%w: group column %q (--by) is given twice", nb.ErrBadOption, c.Name)
		}
		switch nb.ClassifyType(c.Type) {
		case nb.TypeText, nb.TypeInteger, nb.TypeBool:
		default:
			return nil, fmt.Errorf("%w: group column %q (--by) has type %s: group by text, integer or BOOLEAN columns (cast it, e.g. in a query)", nb.ErrBadType, c.Name, c.Type)
		}
		out = append(out, c)
	}
	return out, nil
}

// checkGroupable refuses what per-group models do not support: features that are group columns, fitted
// families (no exact pooled model), text features and given priors.
func checkGroupable(p *nb.Plan, params nb.Params) error {
	for _, f := range p.Features {
		for _, b := range p.By {
			if f.Name == b.Name {
				return fmt.Errorf("%w: column %q is both a feature and a group column (--by): leave it out of --features", nb.ErrBadOption, f.Name)
			}
		}
		if info := families.KindInfo(f.Kind); info != nil && info.Text {
			return fmt.Errorf("%w: --by with the text feature %q is not supported: per-group vocabularies are pruned per model; train one model per group with a WHERE clause instead", nb.ErrBadOption, f.Name)
		}
	}
	for _, g := range families.ByFamily(p.Features) {
		if _, ok := g.Family.(nb.Refitter); ok {
			return fmt.Errorf("%w: --by with %s features is not supported: %s parameters are fitted to the rows, not summed from them, so the groups' models do not merge into an exact pooled model; "+
				"train one model per group with a WHERE clause instead", nb.ErrBadOption, g.Features[0].Kind, g.Features[0].Kind)
		}
	}
	if params.Text("priors") == nb.PriorsGiven {
		return fmt.Errorf("%w: --by with given priors is not supported: a group may lack some classes; use fit, smoothed or uniform priors", nb.ErrBadOption)
	}
	return nil
}

// groupKey is one distinct group of the training source: its id (the fold value of the statistics scans),
// its key as text, and whether some group value is NULL.
type groupKey struct {
	id   int64
	key  []string
	null bool
}

// groupIDExpr is the SQL expression giving a training row's group id: a 63-bit hash of the group columns
// (salted when an earlier salt collided).
func groupIDExpr(by []nb.Column, salt int) string {
	args := make([]string, len(by))
	for i, b := range by {
		args[i] = queries.Row + "." + queries.Ident(b.Name)
	}
	if salt > 0 {
		args = append(args, fmt.Sprint(salt))
	}
	return "CAST(hash(" + strings.Join(args, ", ") + ") >> 1 AS BIGINT)"
}

// scanGroups lists the distinct groups of the source with their ids (train_groups: one cheap GROUP BY over
// the group columns), and returns the id expression under which no two groups collide.
func scanGroups(ctx context.Context, db nb.Querier, p *nb.Plan) ([]groupKey, string, error) {
	names := make([]string, len(p.By))
	for i, b := range p.By {
		names[i] = b.Name
	}
	for salt := range 8 {
		expr := groupIDExpr(p.By, salt)
		stmt, err := queries.Render("train_groups.tmpl.sql", queries.Groups{From: p.Src.From, By: names, ID: expr})
		if err != nil {
			return nil, "", err
		}
		rows, err := nb.QueryRows(ctx, db, stmt, p.Src.Args...)
		if err != nil {
			return nil, "", fmt.Errorf("list groups: %w", err)
		}
		vals := make([]sql.NullString, len(names))
		ptrs := make([]any, 0, len(names)+1)
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		var id int64
		ptrs = append(ptrs, &id)
		var out []groupKey
		ids := map[int64]bool{}
		collided := false
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, "", fmt.Errorf("list groups: %w", err)
			}
			g := groupKey{id: id, key: make([]string, len(vals))}
			for i, v := range vals {
				g.key[i], g.null = v.String, g.null || !v.Valid
			}
			collided = collided || ids[id]
			ids[id] = true
			out = append(out, g)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, "", fmt.Errorf("list groups: %w", err)
		}
		if !collided {
			return out, expr, nil
		}
	}
	return nil, "", fmt.Errorf("group ids collide under 8 hash salts")
}

// trainGrouped computes a per-group model: the groups, then every family's statistics scan once, grouped by
// (group id, class); each group's statistics form its model and their merge the pooled model. Groups with
// fewer than two classes, or whose model cannot be compiled, get no model of their own (a warning says so).
func trainGrouped(ctx context.Context, db nb.Querier, spec TrainSpec, p *nb.Plan, base *nb.Model) (*nb.Model, []string, error) {
	keys, expr, err := scanGroups(ctx, db, p)
	if err != nil {
		return nil, nil, err
	}
	sc, err := trainStats(ctx, db, p, expr)
	if err != nil {
		return nil, nil, err
	}
	var parts []*nb.Model
	var groups []nb.Group
	var warnings []string
	skipped := 0
	for _, k := range keys {
		part := sc.Parts[k.id]
		if part == nil {
			continue
		}
		g := nb.Group{Key: k.key, SkippedRows: part.Skipped, IncompleteRows: part.Incomplete, Classes: part.ClassList(sc.Order), Stats: part.Stats}
		for _, c := range g.Classes {
			g.Rows += c.Count
		}
		member := *base
		member.Rows, member.SkippedRows, member.IncompleteRows, member.Classes, member.Stats = g.Rows, g.SkippedRows, g.IncompleteRows, g.Classes, g.Stats
		parts = append(parts, &member)
		if k.null {
			continue
		}
		if len(g.Classes) < 2 {
			skipped++
			continue
		}
		if c := nb.ZeroWeightClassOf(g.Classes); p.Weight != "" && c != "" {
			// As training on the group's rows alone refuses (checkTrained), but one group does not stop the others.
			warnings = append(warnings, fmt.Sprintf("group %s gets no model of its own (its rows score with the pooled model): %v",
				nb.GroupKey(k.key), nb.ZeroWeightClass(c, p.Weight)))
			continue
		}
		if err := families.Validate(&member); err != nil {
			return nil, nil, fmt.Errorf("group %s: %w", nb.GroupKey(k.key), err)
		}
		if _, err := compileValid(&member); err != nil {
			warnings = append(warnings, fmt.Sprintf("group %s gets no model of its own (its rows score with the pooled model): %v", nb.GroupKey(k.key), err))
			continue
		}
		groups = append(groups, g)
	}
	if skipped > 0 {
		warnings = append(warnings, fmt.Sprintf("%d group(s) hold fewer than two classes and get no model of their own: their rows score with the pooled model", skipped))
	}
	m, err := Merge(base, sc.Order, parts...)
	if err != nil {
		return nil, nil, err
	}
	m.Groups = groups
	return m, warnings, nil
}

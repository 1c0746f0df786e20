package sqlnb

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// alignNames gives part the spelling of base's label, weight and feature names where the two differ only in
// ASCII case: DuckDB reads "X1" and "x1" as one column, so rows read from a source whose column is spelled
// otherwise, or a model trained on it, add to or merge with base as the same column (they were refused as
// different features).
func alignNames(base, part *nb.Model) {
	if part.Label != base.Label && nb.EqualFoldIdent(part.Label, base.Label) {
		part.Label = base.Label
	}
	if part.Weight != base.Weight && nb.EqualFoldIdent(part.Weight, base.Weight) {
		part.Weight = base.Weight
	}
	to := map[string]string{}
	for i := range min(len(base.Features), len(part.Features)) {
		if a, b := base.Features[i].Name, part.Features[i].Name; a != b && nb.EqualFoldIdent(a, b) {
			to[b] = a
		}
	}
	if len(to) == 0 {
		return
	}
	for i, f := range part.Features {
		if n, ok := to[f.Name]; ok {
			part.Features[i].Name = n
		}
	}
	rename := func(s nb.Stats) {
		for _, t := range families.Tables() {
			if rows, ok := s[t.TableName()]; ok {
				t.RenameFeatures(rows, to)
			}
		}
	}
	rename(part.Stats)
	for _, g := range part.Groups {
		rename(g.Stats)
	}
}

// sameFeatures checks that part (another model, or rows scanned for m) has m's label, label type, weight
// column and features — names, kinds, binarize thresholds, tokenizer settings, and, for categorical
// features, the column type, which decides how values read as categories. what names part in errors.
func sameFeatures(m, part *nb.Model, what string) error {
	// What to do, unless the difference says it (cast it): models merge when trained alike, and rows are read
	// as the model was trained.
	todo := "train them alike (the same label, weight column and features, of the same kinds and settings)"
	if what == "the rows" {
		todo = "give rows with the model's label, weight column and features"
	}
	bad := func(format string, args ...any) error {
		detail := fmt.Sprintf(format, args...)
		if !strings.Contains(detail, "cast it") {
			detail += ": " + todo
		}
		return fmt.Errorf("%w: model %q and %s differ: %s", nb.ErrBadOption, m.Name, what, detail)
	}
	if m.Label != part.Label {
		return bad("label column %q, not %q", m.Label, part.Label)
	}
	if m.LabelType != part.LabelType && commonInteger(m.LabelType, part.LabelType) == "" {
		return bad("label column %q is %s in model %q but %s in %s: cast it (SELECT CAST(%s AS %s) AS %s, ...)", m.Label, m.LabelType, m.Name,
			part.LabelType, what, queries.Ident(m.Label), m.LabelType, queries.Ident(m.Label))
	}
	if m.Weight != part.Weight {
		return bad("weight column %q, not %q", m.Weight, part.Weight)
	}
	if len(m.Features) != len(part.Features) {
		// Name the columns one side has and the other lacks (it said only "2 features, not 1").
		has := func(fs []nb.Feature, name string) bool {
			return slices.ContainsFunc(fs, func(f nb.Feature) bool { return f.Name == name })
		}
		var only, lacks []string
		for _, f := range m.Features {
			if !has(part.Features, f.Name) {
				lacks = append(lacks, strconv.Quote(f.Name))
			}
		}
		for _, f := range part.Features {
			if !has(m.Features, f.Name) {
				only = append(only, strconv.Quote(f.Name))
			}
		}
		detail := ""
		if len(lacks) > 0 {
			detail += fmt.Sprintf("; %s lacks %s", what, strings.Join(lacks, ", "))
		}
		if len(only) > 0 {
			detail += fmt.Sprintf("; %s has %s, which model %q does not", what, strings.Join(only, ", "), m.Name)
		}
		return bad("%d features, not %d%s", len(m.Features), len(part.Features), detail)
	}
	for i, f := range m.Features {
		g := part.Features[i]
		switch {
		case f.Name != g.Name:
			return bad("feature %d is %q, not %q", i+1, f.Name, g.Name)
		case f.Kind != g.Kind:
			return bad("feature %q is %s, not %s", f.Name, f.Kind, g.Kind)
		case f.Binarize != g.Binarize:
			return bad("feature %q has binarize threshold %g, not %g", f.Name, f.Binarize, g.Binarize)
		case !sameText(f.Text, g.Text):
			return bad("text feature %q has ngrams %d and stop words %q, not %d and %q", f.Name, max(1, f.Text.Ngrams), f.Text.StopWords, max(1, g.Text.Ngrams), g.Text.StopWords)
		case typedValues(f.Kind) && f.Type != g.Type && commonInteger(f.Type, g.Type) == "":
			return bad("categorical feature %q is %s in model %q but %s in %s: its values would read differently; cast it (CAST(%s AS %s))",
				f.Name, f.Type, m.Name, g.Type, what, queries.Ident(f.Name), f.Type)
		}
	}
	return nil
}

// integerBits gives the width of DuckDB's integer types, negative for the unsigned ones (0: not an integer
// type).
var integerBits = map[string]int{"TINYINT": 8, "SMALLINT": 16, "INTEGER": 32, "BIGINT": 64, "HUGEINT": 128,
	"UTINYINT": -8, "USMALLINT": -16, "UINTEGER": -32, "UBIGINT": -64, "UHUGEINT": -128}

// commonInteger returns the narrowest integer type that holds every value of the integer types a and b (a
// label or category column read as INTEGER in one shard and BIGINT in another: their values read alike,
// and scoring matches them by value), or "" if either is not an integer type.
func commonInteger(a, b string) string {
	x, y := integerBits[strings.ToUpper(a)], integerBits[strings.ToUpper(b)]
	if x == 0 || y == 0 {
		return ""
	}
	if x < 0 && y < 0 { // both unsigned
		return "U" + widthName(max(-x, -y))
	}
	if x < 0 {
		x = -2 * x // a signed type holds an unsigned one of half its width
	}
	if y < 0 {
		y = -2 * y
	}
	if max(x, y) > 128 { // UHUGEINT and a signed type: no integer type holds both
		return ""
	}
	return widthName(max(x, y))
}

func widthName(bits int) string {
	return map[int]string{8: "TINYINT", 16: "SMALLINT", 32: "INTEGER", 64: "BIGINT", 128: "HUGEINT"}[bits]
}

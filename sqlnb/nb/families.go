package nb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/sqlnb/sqlnb/queries"
)

// Families is an ordered set of families: the order training scans run and components compile in. Package
// sqlnb holds the one the product uses; everything that needs to know the families of a model's kinds — its
// validation, its statistics tables, decoding its JSON — takes a Families rather than reading a global.
type Families []Family

// KindInfo returns the description of kind k, or nil for a kind no family has.
func (fs Families) KindInfo(k Kind) *KindInfo {
	for _, f := range fs {
		for _, info := range f.Kinds() {
			if info.Kind == k {
				return &info
			}
		}
	}
	return nil
}

// FamilyOf returns the family of kind k, or nil.
func (fs Families) FamilyOf(k Kind) Family {
	for _, f := range fs {
		for _, info := range f.Kinds() {
			if info.Kind == k {
				return f
			}
		}
	}
	return nil
}

// Kinds lists every kind in order, with its description.
func (fs Families) Kinds() []KindInfo {
	var out []KindInfo
	for _, f := range fs {
		out = append(out, f.Kinds()...)
	}
	return out
}

// KindNames lists the kind names in order.
func (fs Families) KindNames() []string {
	var out []string
	for _, k := range fs.Kinds() {
		out = append(out, string(k.Kind))
	}
	return out
}

// ParseKind reads a kind name; "auto" and "" give the empty Kind (chosen from the column type).
func (fs Families) ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if k == "auto" || k == "" {
		return "", nil
	}
	if fs.KindInfo(k) == nil {
		return "", fmt.Errorf("%w: kind %q: use auto, %s", ErrBadOption, s, strings.Join(fs.KindNames(), ", "))
	}
	return k, nil
}

// FamilyGroup is the features of one family, in the model's order.
type FamilyGroup struct {
	Family   Family
	Features []Feature
}

// ByFamily groups features by family, in the families' order; each group keeps the model's feature order.
func (fs Families) ByFamily(feats []Feature) []FamilyGroup {
	var out []FamilyGroup
	for _, fam := range fs {
		var g []Feature
		for _, f := range feats {
			if fs.FamilyOf(f.Kind) == fam {
				g = append(g, f)
			}
		}
		if len(g) > 0 {
			out = append(out, FamilyGroup{fam, g})
		}
	}
	return out
}

// Tables lists every statistics table of the families once, sorted by name.
func (fs Families) Tables() []StatsTable {
	seen := map[string]bool{}
	var out []StatsTable
	for _, f := range fs {
		for _, t := range f.Tables() {
			if !seen[t.TableName()] {
				seen[t.TableName()] = true
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].TableName() < out[b].TableName() })
	return out
}

// Table returns the statistics table called name, or nil.
func (fs Families) Table(name string) StatsTable {
	for _, t := range fs.Tables() {
		if t.TableName() == name {
			return t
		}
	}
	return nil
}

// ChooseKind picks the kind of column c: asked (non-empty) if c's type allows it, else the first kind whose
// Default rule takes c's type.
func (fs Families) ChooseKind(c Column, asked Kind) (Kind, error) {
	if asked != "" {
		info := fs.KindInfo(asked)
		if info == nil {
			return "", fmt.Errorf("%w: unknown kind %q", ErrBadOption, asked)
		}
		if info.Accepts != nil {
			if err := info.Accepts(c); err != nil {
				return "", err
			}
		}
		return asked, nil
	}
	t := ClassifyType(c.Type)
	for _, k := range fs.Kinds() {
		if k.Default != nil && k.Default(t) {
			return k.Kind, nil
		}
	}
	id := queries.Ident(c.Name)
	if u := strings.ToUpper(c.Type); strings.HasSuffix(u, "[]") || strings.HasPrefix(u, "STRUCT") || strings.HasPrefix(u, "MAP") ||
		strings.HasPrefix(u, "UNION") || strings.Contains(u, "[") {
		// A nested value: one feature per field or element, or a text of it.
		return "", fmt.Errorf("%w: feature %q has type %s, a nested type no kind models: leave it out (--features, --exclude), or "+
			"take its parts apart in a --from query (SELECT %s.field AS ..., %s[1] AS ..., ...), or make it text (CAST(%s AS VARCHAR) "+
			"with --feature-kind %s=categorical)", ErrBadType, c.Name, c.Type, id, id, id, c.Name)
	}
	return "", fmt.Errorf("%w: feature %q has type %s, which no kind models: leave it out (--features, --exclude), or cast it in a "+
		"--from query — to VARCHAR for categories (SELECT CAST(%s AS VARCHAR) AS %s, ...), or to a number (epoch(%s) for a date or time) "+
		"for a Gaussian feature", ErrBadType, c.Name, c.Type, id, id, id)
}

// Validate checks that m is complete and consistent: names, at least two classes, known kinds, the
// families' rules on mixing features, and every statistics row (known feature and class, unique, finite,
// non-negative: Table.Check), complete for every feature (Family.Validate).
func (fs Families) Validate(m *Model) error { return fs.ValidateModel(m, true) }

// validateModel is Validate; with members false a per-group model's groups are checked without validating each
// group's model (the trainer validated them one by one).
func (fs Families) ValidateModel(m *Model, members bool) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: model %q: %s", ErrInvalidModel, m.Name, fmt.Sprintf(format, args...))
	}
	if err := ValidateName(m.Name); err != nil {
		return err
	}
	if err := fs.ValidateParams(m.Params); err != nil {
		return fmt.Errorf("model %q: %w", m.Name, err)
	}
	if m.Version < 1 || m.Version > FormatVersion {
		return bad("format version %d: this sqlnb reads versions 1 to %d", m.Version, FormatVersion)
	}
	if m.Label == "" {
		return bad("no label column")
	}
	if len(m.Classes) < 2 {
		return bad("%d classes: a classifier needs at least two", len(m.Classes))
	}
	if len(m.Features) == 0 {
		return bad("no features")
	}
	classes := map[string]bool{}
	sumPrior := 0.0
	var rows int64
	for _, c := range m.Classes {
		if classes[c.Label] {
			return bad("class %q appears twice", c.Label)
		}
		classes[c.Label] = true
		if c.Count <= 0 || !(c.Weight > 0) || math.IsInf(c.Weight, 1) {
			return bad("table nb.classes, class %q: count %d, weight %v: must be > 0 and finite (a class of weight 0 could never be predicted)", c.Label, c.Count, c.Weight)
		}
		if m.Weight == "" && m.UnlabelledRows == 0 && c.Weight != float64(c.Count) {
			return bad("table nb.classes, class %q: weight %v but %d rows, in a model without a weight column", c.Label, c.Weight, c.Count)
		}
		if m.Params.Text("priors") == PriorsGiven && !(c.Prior > 0 && c.Prior <= 1) {
			return bad("class %q: given prior %v: must be in (0, 1]", c.Label, c.Prior)
		}
		sumPrior += c.Prior
		rows += c.Count
	}
	if m.Params.Text("priors") == PriorsGiven && math.Abs(sumPrior-1) > 1e-6 {
		return bad("given priors sum to %g, not 1", sumPrior)
	}
	if rows != m.Rows {
		return bad("n_rows is %d but the classes hold %d rows", m.Rows, rows)
	}
	names := map[string]bool{}
	for _, f := range m.Features {
		if err := queries.ValidIdent(f.Name); err != nil {
			return bad("feature: %v", err)
		}
		if names[f.Name] {
			return bad("feature %q appears twice", f.Name)
		}
		names[f.Name] = true
		if f.Name == m.Label {
			return bad("feature %q is the label", f.Name)
		}
		if fs.KindInfo(f.Kind) == nil {
			return bad("feature %q: unknown kind %q (kinds: %s)", f.Name, f.Kind, strings.Join(fs.KindNames(), ", "))
		}
		if err := f.Text.Validate(); err != nil {
			return bad("feature %q: %v", f.Name, err)
		}
	}
	if err := fs.CheckFeatures(m.Features, m.Weight != ""); err != nil {
		return bad("%v", err)
	}
	if err := fs.validateStats(m); err != nil {
		return err
	}
	for _, g := range fs.ByFamily(m.Features) {
		if err := g.Family.Validate(m, g.Features); err != nil {
			return err
		}
	}
	return fs.validateGroups(m, members)
}

// CheckFeatures applies the rules on mixing features: each family's Check, a kind that models the feature
// vector as a whole (KindInfo.Alone) alone, and a model with a priorless kind (complement weights are not
// log-likelihoods) has only priorless features.
func (fs Families) CheckFeatures(feats []Feature, weighted bool) error {
	for _, g := range fs.ByFamily(feats) {
		if err := g.Family.Check(g.Features, feats, weighted); err != nil {
			return err
		}
	}
	for _, f := range feats {
		info := fs.KindInfo(f.Kind)
		if info == nil || info.Alone == "" {
			continue
		}
		for _, g := range feats {
			if g.Kind != f.Kind {
				return fmt.Errorf("%w: an %s model takes %s features only (feature %q is %s): its %s couples every feature; "+
					"leave the others out with --features or give every feature the kind %s", ErrBadOption, f.Kind, f.Kind, g.Name, g.Kind,
					info.Alone, f.Kind)
			}
		}
	}
	priorless, other := 0, 0
	for _, f := range feats {
		if info := fs.KindInfo(f.Kind); info != nil && info.Priorless {
			priorless++
		} else {
			other++
		}
	}
	if priorless > 0 && other > 0 {
		return fmt.Errorf("%w: a complement model scores with weights, not log-likelihoods: it takes complement and text_complement features only", ErrBadOption)
	}
	return nil
}

// validateStats checks every statistics row of m (Table.validate) and that m holds no table none of its
// features keeps.
func (fs Families) validateStats(m *Model) error {
	known := map[string]map[string]bool{}
	for _, f := range m.Features {
		fam := fs.FamilyOf(f.Kind)
		if fam == nil {
			continue
		}
		for _, t := range fam.Tables() {
			if known[t.TableName()] == nil {
				known[t.TableName()] = map[string]bool{}
			}
			known[t.TableName()][f.Name] = true
		}
	}
	for _, name := range SortedKeys(m.Stats) {
		t := fs.Table(name)
		if t == nil {
			return fmt.Errorf("%w: model %q: unknown statistics %q", ErrInvalidModel, m.Name, name)
		}
		if err := t.validate(m, m.Stats[name], known[name]); err != nil {
			return err
		}
	}
	return nil
}

// SubtractStats removes the statistics minus from m's, table by table (Table.subtract); rows of the classes
// in gone are dropped.
func (fs Families) SubtractStats(m *Model, minus Stats, gone map[string]bool) (Stats, error) {
	out := Stats{}
	for _, t := range fs.Tables() {
		have, ok := m.Stats[t.TableName()]
		sub, subOK := minus[t.TableName()]
		switch {
		case !subOK && !ok:
			continue
		case !ok:
			have = t.merge(nil)
		}
		rows, err := t.subtract(m, have, sub, gone)
		if err != nil {
			return nil, err
		}
		if t.Size(rows) > 0 {
			out[t.TableName()] = rows
		}
	}
	return out, nil
}

// MergeStats combines the statistics of disjoint parts table by table.
func (fs Families) MergeStats(parts []Stats) Stats {
	out := Stats{}
	for _, t := range fs.Tables() {
		var rows []any
		for _, p := range parts {
			if r, ok := p[t.TableName()]; ok {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			out[t.TableName()] = t.merge(rows)
		}
	}
	return out
}

// splitStatsJSON reads the statistics tables out of a JSON object and returns them with the rest of it.
func (fs Families) splitStatsJSON(data []byte) (Stats, []byte, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, err
	}
	stats := Stats{}
	for _, t := range fs.Tables() {
		body, ok := raw[t.TableName()]
		if !ok {
			continue
		}
		delete(raw, t.TableName())
		if string(body) == "null" {
			continue
		}
		rows, err := t.decode(body)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", t.TableName(), err)
		}
		stats[t.TableName()] = rows
	}
	rest, err := json.Marshal(raw)
	return stats, rest, err
}

// DecodeModel reads a model as Model.MarshalJSON writes it (and format 1, which has the same layout), its
// statistics tables by the families' tables; unknown keys are an error. Hyperparameters an earlier format
// did not have take their defaults.
func (fs Families) DecodeModel(data []byte) (*Model, error) {
	var groups struct {
		Groups []json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal(data, &groups); err != nil {
		return nil, err
	}
	stats, rest, err := fs.splitStatsJSON(data)
	if err != nil {
		return nil, err
	}
	// The groups are decoded below, each with its own statistics.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(rest, &fields); err != nil {
		return nil, err
	}
	delete(fields, "groups")
	rest, err = json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	var f modelFields
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if f.Params, err = fs.ParamSet().Complete(f.Params); err != nil {
		return nil, err
	}
	m := Model(f)
	m.Stats = stats
	for i, raw := range groups.Groups {
		g, err := fs.decodeGroup(raw)
		if err != nil {
			return nil, fmt.Errorf("group %d: %w", i+1, err)
		}
		m.Groups = append(m.Groups, *g)
	}
	return &m, nil
}

// decodeGroup reads a group as Group.MarshalJSON writes it; unknown keys are an error.
func (fs Families) decodeGroup(data []byte) (*Group, error) {
	stats, rest, err := fs.splitStatsJSON(data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	var f groupFields
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	g := Group(f)
	g.Stats = stats
	return &g, nil
}

// ParamSet collects the hyperparameters the families declare (ParamDeclarer), after the ones sqlnb's
// training itself reads (priors; tol and max_iter bound semi-supervised EM). It is built once per registry
// (a registry is a package variable: its backing array identifies it) and shared: validation and loading
// ask for it per model, a thousand times for a per-group model.
func (fs Families) ParamSet() *ParamSet {
	if len(fs) == 0 {
		return fs.buildParamSet()
	}
	key := paramSetKey{&fs[0], len(fs)}
	if ps, ok := paramSets.Load(key); ok {
		return ps.(*ParamSet)
	}
	ps, _ := paramSets.LoadOrStore(key, fs.buildParamSet())
	return ps.(*ParamSet)
}

// paramSetKey identifies a registry: its first element and length.
type paramSetKey struct {
	first *Family
	n     int
}

var paramSets sync.Map // paramSetKey → *ParamSet

func (fs Families) buildParamSet() *ParamSet {
	specs := []ParamSpec{PriorsParam}
	for _, f := range fs {
		if d, ok := f.(ParamDeclarer); ok {
			for _, s := range d.Params() {
				if s.Kinds == nil {
					for _, k := range f.Kinds() {
						s.Kinds = append(s.Kinds, k.Kind)
					}
				}
				specs = append(specs, s)
			}
		}
	}
	tol, maxIter := TolParam, MaxIterParam
	tol.Kinds, maxIter.Kinds = []Kind{}, []Kind{} // EM's use (semi-supervised): paramUsed
	ps, err := NewParamSet(append(specs, tol, maxIter))
	if err != nil {
		panic(err) // the families' declarations disagree: a programming error the tests catch
	}
	return ps
}

// DefaultParams are the hyperparameters of a newly trained model: every declared parameter's default.
func (fs Families) DefaultParams() Params { return fs.ParamSet().Defaults() }

// ValidateParams checks p against the declarations, then each family's constraints between its
// parameters (ParamChecker).
func (fs Families) ValidateParams(p Params) error {
	if err := fs.ParamSet().Validate(p); err != nil {
		return err
	}
	if err := CheckThreshold(p); err != nil {
		return err
	}
	for _, f := range fs {
		if c, ok := f.(ParamChecker); ok {
			if err := c.CheckParams(p); err != nil {
				return err
			}
		}
	}
	return nil
}

package nb

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
)

// GroupColumn is one group column: its name and the DuckDB type it had in training.
type GroupColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Group is one group's model: its key (the group columns' values as text, in By's order), its rows and
// classes and its statistics. Model.Member turns it into a model of its own.
type Group struct {
	Key            []string `json:"key"`
	Rows           int64    `json:"n_rows"`
	SkippedRows    int64    `json:"skipped_rows"`
	IncompleteRows int64    `json:"incomplete_rows,omitempty"`
	Classes        []Class  `json:"classes"`
	Stats          Stats    `json:"-"`
}

// groupFields is Group without its methods (for the JSON codec).
type groupFields Group

// MarshalJSON writes the group's fields, then each statistics table as a key of its own (as Model does).
func (g *Group) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal((*groupFields)(g))
	if err != nil {
		return nil, err
	}
	return appendStatsJSON(head, g.Stats)
}

// Member returns group k's model: m's name, features, hyperparameters and metadata with the group's rows,
// classes and statistics.
func (m *Model) Member(k int) *Model {
	g := &m.Groups[k]
	out := *m
	out.By, out.Groups = nil, nil
	out.Rows, out.SkippedRows, out.IncompleteRows, out.Classes, out.Stats = g.Rows, g.SkippedRows, g.IncompleteRows, g.Classes, g.Stats
	return &out
}

// Pooled returns m without its groups: the model of all training rows.
func (m *Model) Pooled() *Model {
	out := *m
	out.By, out.Groups = nil, nil
	return &out
}

// GroupKey formats a group key for messages: [v1, v2].
func GroupKey(key []string) string { return "[" + strings.Join(key, ", ") + "]" }

// validateGroups checks a grouped model: group columns named, distinct, not the label, weight or a
// feature; every group's key has one value per column, keys are distinct, and (members) every group is a
// valid model.
func (fs Families) validateGroups(m *Model, members bool) error {
	if len(m.By) == 0 {
		if len(m.Groups) > 0 {
			return fmt.Errorf("%w: model %q has %d groups but no group columns", ErrInvalidModel, m.Name, len(m.Groups))
		}
		return nil
	}
	names := map[string]bool{m.Label: true, m.Weight: true}
	for _, f := range m.Features {
		names[f.Name] = true
	}
	for _, b := range m.By {
		if err := queries.ValidIdent(b.Name); err != nil {
			return fmt.Errorf("%w: model %q: group column: %v", ErrInvalidModel, m.Name, err)
		}
		if names[b.Name] {
			return fmt.Errorf("%w: model %q: group column %q is also the label, the weight, a feature or another group column", ErrInvalidModel, m.Name, b.Name)
		}
		names[b.Name] = true
	}
	seen := map[string]bool{}
	for k := range m.Groups {
		g := &m.Groups[k]
		if len(g.Key) != len(m.By) {
			return fmt.Errorf("%w: model %q: group %d has %d key values for %d group columns", ErrInvalidModel, m.Name, k+1, len(g.Key), len(m.By))
		}
		id := strings.Join(g.Key, "\x00")
		if seen[id] {
			return fmt.Errorf("%w: model %q: group %s appears twice", ErrInvalidModel, m.Name, GroupKey(g.Key))
		}
		seen[id] = true
		if !members {
			continue
		}
		if err := fs.Validate(m.Member(k)); err != nil {
			return fmt.Errorf("group %s: %w", GroupKey(g.Key), err)
		}
	}
	return nil
}

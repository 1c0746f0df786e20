package store

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Export writes m as indented JSON.
func Export(w io.Writer, m *nb.Model) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Import reads a model exported by Export (format version 1 to 3) and validates it; rename, if not empty,
// renames it.
func (st Store) Import(r io.Reader, rename string) (*nb.Model, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: read model JSON: %v", nb.ErrInvalidModel, err)
	}
	m, err := st.Families.DecodeModel(data)
	if err != nil {
		return nil, fmt.Errorf("%w: read model JSON: %v: give a model as sqlnb models export (nb_export) writes it", nb.ErrInvalidModel, err)
	}
	// A null group key would read as "" (a group of empty-text values): refused, as null statistics are.
	var keys struct {
		Groups []struct {
			Key []*string `json:"key"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(data, &keys); err == nil {
		for g, grp := range keys.Groups {
			if slices.Contains(grp.Key, nil) {
				return nil, fmt.Errorf("%w: model JSON: group %d has a null key value: rows with a NULL group value are scored by the pooled model and have no group",
					nb.ErrInvalidModel, g+1)
			}
		}
	}
	// The labels must read as the label column's type (nb_predict returns them in it).
	if parse, ok := nb.LabelTypes[strings.ToUpper(strings.TrimSpace(m.LabelType))]; ok {
		for _, c := range m.Classes {
			if _, err := parse(c.Label); err != nil {
				return nil, fmt.Errorf("%w: model JSON: class %q does not read as the label type %s", nb.ErrInvalidModel, c.Label, m.LabelType)
			}
		}
	}
	if m.Version < 1 || m.Version > nb.FormatVersion {
		return nil, fmt.Errorf("%w: model JSON has format_version %d; this sqlnb reads 1 to %d", nb.ErrInvalidModel, m.Version, nb.FormatVersion)
	}
	if rename != "" {
		m.Name = rename
	}
	if err := nb.ValidateName(m.Name); err != nil {
		if rename != "" {
			return nil, err
		}
		return nil, fmt.Errorf("model JSON: %w: store it under another name (--name, name :=)", err)
	}
	if m.Created.IsZero() {
		m.Created = time.Now().UTC()
	}
	m.Generation = nb.NewGeneration()
	if err := st.Families.Validate(m); err != nil {
		return nil, err
	}
	m.Version = nb.FormatVersion
	return m, nil
}

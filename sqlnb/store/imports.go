package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// SaveImported stores a model read by Import as Save does, except that a stored model of the same name is
// replaced only when replace is set: otherwise the result is ErrModelExists and the stored model stays as
// it was.
func (st Store) SaveImported(ctx context.Context, db nb.DB, m *nb.Model, replace bool) error {
	if err := checkTypes(ctx, db, m); err != nil {
		return err
	}
	if !replace {
		names, err := ModelNames(ctx, db)
		if err != nil {
			return err
		}
		if slices.Contains(names, m.Name) {
			return fmt.Errorf("%w: import %q: a model of that name is stored; import it under another name "+
				"(--name, name :=) or replace it (--replace, replace := true)", nb.ErrModelExists, m.Name)
		}
	}
	return st.Save(ctx, db, m)
}

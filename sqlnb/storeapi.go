package sqlnb

import (
	"context"
	"io"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

// theStore is the model store with sqlnb's families.
var theStore = store.Store{Families: families}

// EnsureStore creates the model store (schema nb and its tables) if it does not exist, and upgrades one of
// an earlier format.
func EnsureStore(ctx context.Context, q nb.Querier) error { return theStore.EnsureStore(ctx, q) }

// Upgrade brings the model store of db to FormatVersion, and returns the format it had (FormatVersion: none
// was needed; 0: there is no store).
func Upgrade(ctx context.Context, db nb.DB) (from int, err error) { return theStore.Upgrade(ctx, db) }

// Save stores m (validated), replacing a model of the same name, in one transaction: readers see the old
// model or the new one, never a mixture. m gets a new Generation.
func Save(ctx context.Context, db nb.DB, m *nb.Model) error { return theStore.Save(ctx, db, m) }

// SaveImported stores a model read by Import as Save does, except that a stored model of the same name is
// replaced only when replace is set: otherwise the result is ErrModelExists and the stored model stays as it
// was.
func SaveImported(ctx context.Context, db nb.DB, m *nb.Model, replace bool) error {
	return theStore.SaveImported(ctx, db, m, replace)
}

// Load reads the model name from the store, every table from the same committed version of the model.
func Load(ctx context.Context, q nb.Querier, name string) (*nb.Model, error) {
	return theStore.Load(ctx, q, name)
}

// LoadTx reads the model name with q as it is (q's own transaction, if any).
func LoadTx(ctx context.Context, q nb.Querier, name string) (*nb.Model, error) {
	return theStore.LoadTx(ctx, q, name)
}

// Drop deletes the model name; ErrUnknownModel if there is none.
func Drop(ctx context.Context, db nb.DB, name string) error { return theStore.Drop(ctx, db, name) }

// Import reads a model exported by Export and validates it; rename, if not empty, renames it.
func Import(r io.Reader, rename string) (*nb.Model, error) { return theStore.Import(r, rename) }

// CurrentParams reads the generation and hyperparameters of a stored model (one row), so that a cached
// compiled model is reused while both are unchanged.
func CurrentParams(ctx context.Context, q nb.Querier, name string) (generation string, p nb.Params, err error) {
	return theStore.CurrentParams(ctx, q, name)
}

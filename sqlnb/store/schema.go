package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

var schemaStatements = []string{
	"store_create_schema.sql", "store_create_features.sql", "store_create_classes.sql",
	"store_create_groups.sql", "store_create_group_classes.sql",
}

// upgradeStatements add the nb.models columns of later formats to an earlier store (each IF NOT EXISTS):
// format 2's, then format 3's and 4's.
var upgradeStatements = []string{
	"store_upgrade_threshold.sql", "store_upgrade_eps.sql",
	"store_upgrade_reg_param.sql", "store_upgrade_solver.sql", "store_upgrade_shrinkage.sql", "store_upgrade_c.sql",
	"store_upgrade_penalty.sql", "store_upgrade_tol.sql", "store_upgrade_max_iter.sql", "store_upgrade_incomplete_rows.sql",
	"store_upgrade_iterations.sql", "store_upgrade_grad_norm.sql", "store_upgrade_unlabelled_rows.sql", "store_upgrade_log_likelihood.sql",
}

// upgradeLast marks a store as format 4 (storeVersion looks for it): it runs after every other upgrade.
const upgradeLast = "store_upgrade_group_by.sql"

// EnsureStore creates the nb schema and its tables if they do not exist, and upgrades a store of an
// earlier format (Upgrade).
func (st Store) EnsureStore(ctx context.Context, q nb.Querier) error {
	var foreign bool
	if err := q.QueryRowContext(ctx, queries.SQL("store_foreign_models.sql")).Scan(&foreign); err != nil {
		return fmt.Errorf("read model store: %w", err)
	}
	if foreign {
		return errors.New("the database has a table or view nb.models that is not sqlnb's: sqlnb keeps its models in the schema nb; " +
			"move yours to another schema (CREATE SCHEMA mine; CREATE TABLE mine.models AS FROM nb.models; DROP TABLE nb.models — for a view, " +
			"CREATE VIEW mine.models with its query and DROP VIEW nb.models) or use " +
			"another database file (nothing was changed)")
	}
	for _, name := range schemaStatements {
		if _, err := q.ExecContext(ctx, queries.SQL(name)); err != nil {
			return fmt.Errorf("create model store: %w", err)
		}
	}
	if err := createModelsTable(ctx, q, "models"); err != nil {
		return fmt.Errorf("create model store: %w", err)
	}
	for _, t := range st.Families.Tables() {
		stmt, err := queries.Render("store_create_stats.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create model store: %w", err)
		}
	}
	v, err := storeVersion(ctx, q)
	if err != nil || v == nb.FormatVersion {
		return err
	}
	for _, name := range upgradeStatements {
		if _, err := q.ExecContext(ctx, queries.SQL(name)); err != nil {
			return fmt.Errorf("upgrade model store: %w", err)
		}
	}
	// Format 4: every statistics row gets a group id (0: the model itself).
	for _, t := range st.Families.Tables() {
		stmt, err := queries.Render("store_upgrade_group_id.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("upgrade model store: %w", err)
		}
	}
	if _, err := q.ExecContext(ctx, queries.SQL(upgradeLast)); err != nil {
		return fmt.Errorf("upgrade model store: %w", err)
	}
	return st.upgradeParams(ctx, q)
}

// formatFourParams are the hyperparameter columns of a format-4 nb.models, in store_upgrade_read_params.sql's
// order.
var formatFourParams = []string{"alpha", "var_smoothing", "variance", "priors", "norm", "min_df", "max_features", "threshold",
	"eps", "reg_param", "solver", "shrinkage", "c", "penalty", "tol", "max_iter"}

// createModelsTable creates nb.<table> as format 5 has nb.models.
func createModelsTable(ctx context.Context, q nb.Querier, table string) error {
	stmt, err := queries.Render("store_create_models.tmpl.sql", queries.ModelsTable{Table: table})
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, stmt)
	return err
}

// upgradeParams is format 4 → 5: each model's hyperparameter columns become one JSON object, params, in a new
// nb.models that replaces the old one.
func (st Store) upgradeParams(ctx context.Context, q nb.Querier) error {
	fail := func(err error) error { return fmt.Errorf("upgrade model store to format 5: %w", err) }
	rows, err := q.QueryContext(ctx, queries.SQL("store_upgrade_read_params.sql"))
	if err != nil {
		return fail(err)
	}
	type model struct {
		name   string
		params []byte
	}
	var models []model
	ps := st.Families.ParamSet()
	for rows.Next() {
		var name string
		vals := make([]any, len(formatFourParams))
		dst := []any{&name}
		for i := range vals {
			dst = append(dst, &vals[i])
		}
		if err := rows.Scan(dst...); err != nil {
			rows.Close()
			return fail(err)
		}
		p := ps.Defaults()
		for i, col := range formatFourParams {
			if vals[i] != nil {
				if i32, ok := vals[i].(int32); ok {
					vals[i] = int64(i32)
				}
				p = p.With(col, vals[i])
			}
		}
		if p, err = ps.Complete(p); err != nil {
			rows.Close()
			return fail(fmt.Errorf("model %q: %w", name, err))
		}
		b, err := json.Marshal(p)
		if err != nil {
			rows.Close()
			return fail(err)
		}
		models = append(models, model{name, b})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if err := createModelsTable(ctx, q, "models_v5"); err != nil {
		return fail(err)
	}
	for _, m := range models {
		if _, err := q.ExecContext(ctx, queries.SQL("store_upgrade_copy_model.sql"), string(m.params), m.name); err != nil {
			return fail(err)
		}
	}
	if _, err := q.ExecContext(ctx, queries.SQL("store_upgrade_swap_models.sql")); err != nil {
		return fail(err)
	}
	return nil
}

// Upgrade brings an existing model store to FormatVersion (nothing if there is none): the columns and
// tables later formats added are created, and every model's format_version is updated. It returns the
// oldest format version found. Version 1 → 2 adds nb.models.threshold and eps (0: e1071's rule off) and
// nb.poisson; 2 → 3 adds the hyperparameters and fit summary of discriminant analysis and logistic
// regression (with their defaults) and nb.comoments and nb.logistic; 3 → 4 adds the summary of
// semi-supervised training (unlabelled_rows, log_likelihood: 0), nb.models.group_by (NULL), nb.groups,
// nb.group_classes and the statistics tables' group_id (0); the statistics of earlier models are unchanged.
func (st Store) Upgrade(ctx context.Context, db nb.DB) (from int, err error) {
	ok, err := storeExists(ctx, db)
	if err != nil || !ok {
		return nb.FormatVersion, err
	}
	from, err = storeVersion(ctx, db)
	if err != nil || from == nb.FormatVersion {
		return from, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return from, err
	}
	defer tx.Rollback()
	if err := st.EnsureStore(ctx, tx); err != nil {
		return from, err
	}
	if _, err := tx.ExecContext(ctx, queries.SQL("store_set_format_version.sql"), nb.FormatVersion); err != nil {
		return from, fmt.Errorf("upgrade model store: %w", err)
	}
	// Stores written before version markers existed (format 4 and earlier) have none, or some.
	gens, err := tx.QueryContext(ctx, queries.SQL("store_generations.sql"))
	if err != nil {
		return from, fmt.Errorf("upgrade model store: %w", err)
	}
	var all []string
	for gens.Next() {
		var g string
		if err := gens.Scan(&g); err != nil {
			gens.Close()
			return from, err
		}
		all = append(all, g)
	}
	gens.Close()
	for _, g := range all {
		if err := createMarker(ctx, tx, g, true); err != nil {
			return from, fmt.Errorf("upgrade model store: %w", err)
		}
	}
	return from, tx.Commit()
}

// storeVersion returns the oldest format version of the store: 1 if nb.models lacks the columns of version 2,
// 2 if it lacks those of version 3, 3 if it lacks those of version 4.
func storeVersion(ctx context.Context, q nb.Querier) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, queries.SQL("store_format_version.sql")).Scan(&v); err != nil {
		return 0, fmt.Errorf("read model store version: %w", err)
	}
	if !v.Valid {
		return nb.FormatVersion, nil
	}
	return int(v.Int64), nil
}

func storeExists(ctx context.Context, q nb.Querier) (bool, error) {
	var ok bool
	err := q.QueryRowContext(ctx, queries.SQL("store_schema_exists.sql")).Scan(&ok)
	return ok, err
}

// errOldStore explains what to do with a store of an earlier format that was opened without upgrading.
func errOldStore(version int) error {
	return fmt.Errorf("%w: the model store in this database has format version %d; this sqlnb reads version %d: "+
		"open the database once with a writable sqlnb command (or run `sqlnb models upgrade`) to upgrade it", nb.ErrInvalidModel, version, nb.FormatVersion)
}

package sqlnb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/queries"
)

var schemaStatements = []string{
	"store_create_schema.sql", "store_create_models.sql", "store_create_features.sql", "store_create_classes.sql",
}

// upgradeStatements add the nb.models columns of later formats to an earlier store (each IF NOT EXISTS):
// format 2's, then format 3's.
var upgradeStatements = []string{
	"store_upgrade_threshold.sql", "store_upgrade_eps.sql",
	"store_upgrade_reg_param.sql", "store_upgrade_solver.sql", "store_upgrade_shrinkage.sql", "store_upgrade_c.sql",
	"store_upgrade_penalty.sql", "store_upgrade_tol.sql", "store_upgrade_max_iter.sql", "store_upgrade_incomplete_rows.sql",
	"store_upgrade_iterations.sql", "store_upgrade_grad_norm.sql",
}

// EnsureStore creates the nb schema and its tables if they do not exist, and upgrades a store of an
// earlier format (Upgrade).
func EnsureStore(ctx context.Context, q Querier) error {
	for _, name := range schemaStatements {
		if _, err := q.ExecContext(ctx, queries.SQL(name)); err != nil {
			return fmt.Errorf("create model store: %w", err)
		}
	}
	for _, t := range allTables {
		stmt, err := queries.Render("store_create_stats.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create model store: %w", err)
		}
	}
	v, err := storeVersion(ctx, q)
	if err != nil || v == FormatVersion {
		return err
	}
	for _, name := range upgradeStatements {
		if _, err := q.ExecContext(ctx, queries.SQL(name)); err != nil {
			return fmt.Errorf("upgrade model store: %w", err)
		}
	}
	return nil
}

// Upgrade brings an existing model store to FormatVersion (nothing if there is none): the columns and
// tables later formats added are created, and every model's format_version is updated. It returns the
// oldest format version found. Version 1 → 2 adds nb.models.threshold and eps (0: e1071's rule off) and
// nb.poisson; 2 → 3 adds the hyperparameters and fit summary of discriminant analysis and logistic
// regression (with their defaults) and nb.comoments and nb.logistic; the statistics of earlier models are
// unchanged.
func Upgrade(ctx context.Context, db DB) (from int, err error) {
	ok, err := storeExists(ctx, db)
	if err != nil || !ok {
		return FormatVersion, err
	}
	from, err = storeVersion(ctx, db)
	if err != nil || from == FormatVersion {
		return from, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return from, err
	}
	defer tx.Rollback()
	if err := EnsureStore(ctx, tx); err != nil {
		return from, err
	}
	if _, err := tx.ExecContext(ctx, queries.SQL("store_set_format_version.sql"), FormatVersion); err != nil {
		return from, fmt.Errorf("upgrade model store: %w", err)
	}
	return from, tx.Commit()
}

// storeVersion returns the oldest format version of the store: 1 if nb.models lacks the columns of version 2,
// 2 if it lacks those of version 3.
func storeVersion(ctx context.Context, q Querier) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, queries.SQL("store_format_version.sql")).Scan(&v); err != nil {
		return 0, fmt.Errorf("read model store version: %w", err)
	}
	if !v.Valid {
		return FormatVersion, nil
	}
	return int(v.Int64), nil
}

func storeExists(ctx context.Context, q Querier) (bool, error) {
	var ok bool
	err := q.QueryRowContext(ctx, queries.SQL("store_schema_exists.sql")).Scan(&ok)
	return ok, err
}

// Save stores m (validated), replacing a model of the same name, in one transaction.
func Save(ctx context.Context, db DB, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	m.Version = FormatVersion
	if err := EnsureStore(ctx, db); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store model: %w", err)
	}
	if err := saveTx(ctx, tx, m); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("store model %q: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store model %q: %w", m.Name, err)
	}
	return nil
}

func saveTx(ctx context.Context, tx *sql.Tx, m *Model) error {
	if err := deleteTx(ctx, tx, m.Name); err != nil {
		return err
	}
	var weight any
	if m.Weight != "" {
		weight = m.Weight
	}
	p := m.Params
	if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_model.sql"), m.Name, m.Label, m.LabelType, weight,
		m.Source, p.Alpha, p.VarSmoothing, p.Variance, p.Priors, p.Norm, p.MinDF, p.MaxFeatures, m.Rows, m.SkippedRows,
		m.Created, m.Version, m.Generation, p.Threshold, p.Eps, p.RegParam, p.Solver, p.Shrinkage, p.C, p.Penalty, p.Tol, p.MaxIter,
		m.IncompleteRows, m.Iterations, m.GradNorm); err != nil {
		return err
	}
	n := len(m.Features)
	names, kinds, types, stops := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ngrams, thresholds := make([]int32, n), make([]float64, n)
	for i, f := range m.Features {
		names[i], kinds[i], types[i], ngrams[i], stops[i], thresholds[i] = f.Name, string(f.Kind), f.Type, int32(f.Text.Ngrams), f.Text.StopWords, f.Binarize
	}
	if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_features.sql"), m.Name, names, kinds, types, ngrams, stops, thresholds); err != nil {
		return err
	}
	labels, counts, weights, priors := make([]string, len(m.Classes)), make([]int64, len(m.Classes)),
		make([]float64, len(m.Classes)), make([]any, len(m.Classes))
	for i, c := range m.Classes {
		labels[i], counts[i], weights[i] = c.Label, c.Count, c.Weight
		if m.Params.Priors == PriorsGiven {
			priors[i] = c.Prior
		}
	}
	if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_classes.sql"), m.Name, labels, counts, weights, priors); err != nil {
		return err
	}
	return saveStats(ctx, tx, m)
}

func deleteTx(ctx context.Context, q Querier, name string) error {
	for _, t := range []string{"models", "features", "classes"} {
		if _, err := q.ExecContext(ctx, queries.SQL("store_delete_"+t+".sql"), name); err != nil {
			return err
		}
	}
	for _, t := range allTables {
		stmt, err := queries.Render("store_delete_stats.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, stmt, name); err != nil {
			return err
		}
	}
	return nil
}

// ModelNames lists the stored models, sorted (none if the store does not exist).
func ModelNames(ctx context.Context, q Querier) ([]string, error) {
	if ok, err := storeExists(ctx, q); err != nil || !ok {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, queries.SQL("store_model_names.sql"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// UnknownModelError returns ErrUnknownModel for name, listing the models that exist.
func UnknownModelError(ctx context.Context, q Querier, name string) error {
	names, _ := ModelNames(ctx, q)
	have := "there are no models yet: train one with nb_train or sqlnb train"
	if len(names) > 0 {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		have = "models: " + strings.Join(quoted, ", ")
	}
	return fmt.Errorf("%w %q (%s)", ErrUnknownModel, name, have)
}

// errOldStore explains what to do with a store of an earlier format that was opened without upgrading.
func errOldStore(version int) error {
	return fmt.Errorf("%w: the model store in this database has format version %d; this sqlnb reads version %d: "+
		"open the database once with a writable sqlnb command (or run `sqlnb models upgrade`) to upgrade it", ErrInvalidModel, version, FormatVersion)
}

// Load reads the model name from the store, in one transaction when q can start one (db.BeginTx), so that
// every table is read from the same committed version of the model.
func Load(ctx context.Context, q Querier, name string) (*Model, error) {
	if db, ok := q.(DB); ok {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("load model %q: %w", name, err)
		}
		defer tx.Rollback()
		q = tx
	}
	if ok, err := storeExists(ctx, q); err != nil {
		return nil, err
	} else if !ok {
		return nil, UnknownModelError(ctx, q, name)
	}
	if v, err := storeVersion(ctx, q); err != nil {
		return nil, err
	} else if v < FormatVersion {
		return nil, errOldStore(v)
	}
	m := &Model{}
	var weight sql.NullString
	p := &m.Params
	err := q.QueryRowContext(ctx, queries.SQL("store_load_model.sql"), name).Scan(&m.Name, &m.Label, &m.LabelType, &weight,
		&m.Source, &p.Alpha, &p.VarSmoothing, &p.Variance, &p.Priors, &p.Norm, &p.MinDF, &p.MaxFeatures, &m.Rows, &m.SkippedRows,
		&m.Created, &m.Version, &m.Generation, &p.Threshold, &p.Eps, &p.RegParam, &p.Solver, &p.Shrinkage, &p.C, &p.Penalty,
		&p.Tol, &p.MaxIter, &m.IncompleteRows, &m.Iterations, &m.GradNorm)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, UnknownModelError(ctx, q, name)
	}
	if err != nil {
		return nil, fmt.Errorf("load model %q: %w", name, err)
	}
	m.Weight = weight.String
	if err := loadRows(ctx, q, "store_load_features.sql", name, func(r *sql.Rows) error {
		var f Feature
		err := r.Scan(&f.Name, &f.Kind, &f.Type, &f.Text.Ngrams, &f.Text.StopWords, &f.Binarize)
		m.Features = append(m.Features, f)
		return err
	}); err != nil {
		return nil, err
	}
	if err := loadRows(ctx, q, "store_load_classes.sql", name, func(r *sql.Rows) error {
		var c Class
		var prior sql.NullFloat64
		err := r.Scan(&c.Label, &c.Count, &c.Weight, &prior)
		c.Prior = prior.Float64
		m.Classes = append(m.Classes, c)
		return err
	}); err != nil {
		return nil, err
	}
	if m.Stats, err = loadStats(ctx, q, name); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func loadRows(ctx context.Context, q Querier, file, name string, scan func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, queries.SQL(file), name)
	if err != nil {
		return fmt.Errorf("load model %q: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("load model %q: %w", name, err)
		}
	}
	return rows.Err()
}

// CurrentParams reads the generation and hyperparameters of a stored model (cheap: one row), so a
// cached compiled model can be reused while both are unchanged.
func CurrentParams(ctx context.Context, q Querier, name string) (generation string, p Params, err error) {
	err = q.QueryRowContext(ctx, queries.SQL("store_load_params.sql"), name).Scan(&generation, &p.Alpha, &p.VarSmoothing,
		&p.Variance, &p.Priors, &p.Norm, &p.MinDF, &p.MaxFeatures, &p.Threshold, &p.Eps, &p.RegParam, &p.Solver, &p.Shrinkage,
		&p.C, &p.Penalty, &p.Tol, &p.MaxIter)
	if errors.Is(err, sql.ErrNoRows) {
		return "", p, UnknownModelError(ctx, q, name)
	}
	if err != nil {
		if ok, serr := storeExists(ctx, q); serr == nil && !ok {
			return "", p, UnknownModelError(ctx, q, name)
		}
		if v, verr := storeVersion(ctx, q); verr == nil && v < FormatVersion {
			return "", p, errOldStore(v)
		}
	}
	return generation, p, err
}

// Drop deletes the model name; ErrUnknownModel if there is none.
func Drop(ctx context.Context, db DB, name string) error {
	if _, err := Load(ctx, db, name); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := deleteTx(ctx, tx, name); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("drop model %q: %w", name, err)
	}
	return tx.Commit()
}

// SetParams changes the hyperparameters of a stored model without retraining (given priors by class).
func SetParams(ctx context.Context, db DB, name string, p Params, given map[string]float64) (*Model, error) {
	m, err := Load(ctx, db, name)
	if err != nil {
		return nil, err
	}
	for _, g := range byFamily(m.Features) {
		if fp, ok := g.fam.(fitParamsFamily); ok {
			if err := fp.checkParams(m, p); err != nil {
				return nil, err
			}
		}
	}
	m.Params = p
	m.Generation = newGeneration()
	if p.Priors == PriorsGiven {
		if err := applyGivenPriors(m, given); err != nil {
			return nil, fmt.Errorf("model %q: %w", name, err)
		}
	} else {
		for i := range m.Classes {
			m.Classes[i].Prior = 0
		}
	}
	if _, err := Compile(m); err != nil {
		return nil, err
	}
	if err := Save(ctx, db, m); err != nil {
		return nil, err
	}
	return m, nil
}

// Export writes m as indented JSON.
func Export(w io.Writer, m *Model) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Import reads a model exported by Export (format version 1 to 3) and validates it; rename, if not empty,
// renames it.
func Import(r io.Reader, rename string) (*Model, error) {
	m := &Model{}
	if err := json.NewDecoder(r).Decode(m); err != nil {
		return nil, fmt.Errorf("%w: read model JSON: %v", ErrInvalidModel, err)
	}
	if m.Version < 1 || m.Version > FormatVersion {
		return nil, fmt.Errorf("%w: model JSON has format_version %d; this sqlnb reads 1 to %d", ErrInvalidModel, m.Version, FormatVersion)
	}
	if rename != "" {
		m.Name = rename
	}
	if m.Created.IsZero() {
		m.Created = time.Now().UTC()
	}
	m.Generation = newGeneration()
	if err := m.Validate(); err != nil {
		return nil, err
	}
	m.Version = FormatVersion
	return m, nil
}

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
	"store_create_schema.sql", "store_create_models.sql", "store_create_features.sql",
	"store_create_classes.sql", "store_create_gaussian.sql", "store_create_categorical.sql", "store_create_totals.sql",
	"store_create_terms.sql",
}

// EnsureStore creates the nb schema and its tables if they do not exist.
func EnsureStore(ctx context.Context, q Querier) error {
	for _, name := range schemaStatements {
		if _, err := q.ExecContext(ctx, queries.SQL(name)); err != nil {
			return fmt.Errorf("create model store: %w", err)
		}
	}
	return nil
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
	if err := EnsureStore(ctx, db); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store model: %w", err)
	}
	if err := saveTx(ctx, tx, m); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("store model: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store model: %w", err)
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
	if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_model.sql"), m.Name, m.Label, m.LabelType, weight,
		m.Source, m.Params.Alpha, m.Params.VarSmoothing, m.Params.Variance, m.Params.Priors, m.Params.Norm, m.Params.MinDF, m.Params.MaxFeatures, m.Rows, m.SkippedRows,
		m.Created, m.Version, m.Generation); err != nil {
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
	if len(m.Gaussian) > 0 {
		n := len(m.Gaussian)
		feat, class := make([]string, n), make([]string, n)
		cnt := make([]int64, n)
		mean, m2, w, wmean, wm2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i, g := range m.Gaussian {
			feat[i], class[i], cnt[i], mean[i], m2[i], w[i], wmean[i], wm2[i] = g.Feature, g.Class, g.Count, g.Mean, g.M2, g.Weight, g.WMean, g.WM2
		}
		if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_gaussian.sql"), m.Name, feat, class, cnt, mean, m2, w, wmean, wm2); err != nil {
			return err
		}
	}
	if len(m.Counts) > 0 {
		n := len(m.Counts)
		feat, class, value := make([]string, n), make([]string, n), make([]string, n)
		cnt, w := make([]int64, n), make([]float64, n)
		for i, c := range m.Counts {
			feat[i], class[i], value[i], cnt[i], w[i] = c.Feature, c.Class, c.Value, c.Count, c.Weight
		}
		if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_categorical.sql"), m.Name, feat, class, value, cnt, w); err != nil {
			return err
		}
	}
	if len(m.Totals) > 0 {
		n := len(m.Totals)
		feat, class, total := make([]string, n), make([]string, n), make([]float64, n)
		for i, c := range m.Totals {
			feat[i], class[i], total[i] = c.Feature, c.Class, c.Total
		}
		if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_totals.sql"), m.Name, feat, class, total); err != nil {
			return err
		}
	}
	if len(m.Terms) > 0 {
		n := len(m.Terms)
		feat, class, term := make([]string, n), make([]string, n), make([]string, n)
		cnt, docs, present, w := make([]int64, n), make([]int64, n), make([]int64, n), make([]float64, n)
		for i, t := range m.Terms {
			feat[i], class[i], term[i], cnt[i], docs[i], present[i], w[i] = t.Feature, t.Class, t.Term, t.Count, t.Docs, t.Present, t.Weight
		}
		if _, err := tx.ExecContext(ctx, queries.SQL("store_insert_terms.sql"), m.Name, feat, class, term, cnt, docs, present, w); err != nil {
			return err
		}
	}
	return nil
}

func deleteTx(ctx context.Context, q Querier, name string) error {
	for _, t := range []string{"models", "features", "classes", "gaussian", "categorical", "totals", "terms"} {
		if _, err := q.ExecContext(ctx, queries.SQL("store_delete_"+t+".sql"), name); err != nil {
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

// Load reads the model name from the store.
func Load(ctx context.Context, q Querier, name string) (*Model, error) {
	if ok, err := storeExists(ctx, q); err != nil {
		return nil, err
	} else if !ok {
		return nil, UnknownModelError(ctx, q, name)
	}
	m := &Model{}
	var weight sql.NullString
	err := q.QueryRowContext(ctx, queries.SQL("store_load_model.sql"), name).Scan(&m.Name, &m.Label, &m.LabelType, &weight,
		&m.Source, &m.Params.Alpha, &m.Params.VarSmoothing, &m.Params.Variance, &m.Params.Priors, &m.Params.Norm, &m.Params.MinDF, &m.Params.MaxFeatures, &m.Rows, &m.SkippedRows,
		&m.Created, &m.Version, &m.Generation)
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
	if err := loadRows(ctx, q, "store_load_gaussian.sql", name, func(r *sql.Rows) error {
		var g GaussianStat
		var mean, wmean sql.NullFloat64
		err := r.Scan(&g.Feature, &g.Class, &g.Count, &mean, &g.M2, &g.Weight, &wmean, &g.WM2)
		g.Mean, g.WMean = mean.Float64, wmean.Float64
		m.Gaussian = append(m.Gaussian, g)
		return err
	}); err != nil {
		return nil, err
	}
	if err := loadRows(ctx, q, "store_load_categorical.sql", name, func(r *sql.Rows) error {
		var c CategoryCount
		err := r.Scan(&c.Feature, &c.Class, &c.Value, &c.Count, &c.Weight)
		m.Counts = append(m.Counts, c)
		return err
	}); err != nil {
		return nil, err
	}
	if err := loadRows(ctx, q, "store_load_totals.sql", name, func(r *sql.Rows) error {
		var c CountStat
		err := r.Scan(&c.Feature, &c.Class, &c.Total)
		m.Totals = append(m.Totals, c)
		return err
	}); err != nil {
		return nil, err
	}
	if err := loadRows(ctx, q, "store_load_terms.sql", name, func(r *sql.Rows) error {
		var t TermCount
		err := r.Scan(&t.Feature, &t.Class, &t.Term, &t.Count, &t.Docs, &t.Present, &t.Weight)
		m.Terms = append(m.Terms, t)
		return err
	}); err != nil {
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
	err = q.QueryRowContext(ctx, queries.SQL("store_load_params.sql"), name).Scan(&generation, &p.Alpha, &p.VarSmoothing, &p.Variance, &p.Priors, &p.Norm, &p.MinDF, &p.MaxFeatures)
	if errors.Is(err, sql.ErrNoRows) {
		return "", p, UnknownModelError(ctx, q, name)
	}
	if err != nil {
		if ok, serr := storeExists(ctx, q); serr == nil && !ok {
			return "", p, UnknownModelError(ctx, q, name)
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

// Import reads a model exported by Export and validates it; rename, if not empty, renames it.
func Import(r io.Reader, rename string) (*Model, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	m := &Model{}
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%w: read model JSON: %v", ErrInvalidModel, err)
	}
	if m.Version != FormatVersion {
		return nil, fmt.Errorf("%w: model JSON has format_version %d; this sqlnb reads %d", ErrInvalidModel, m.Version, FormatVersion)
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
	return m, nil
}

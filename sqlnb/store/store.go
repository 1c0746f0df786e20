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

// Store reads and writes models in the nb schema of a database: a model's statistics go to and come from the
// tables of the families of its kinds.
type Store struct {
	Families nb.Families
}

// Save stores m (validated), replacing a model of the same name, in one transaction: readers see the old
// model or the new one, never a mixture. A write conflict with a concurrent writer of the same model is
// retried; one that persists is an error naming the model. m gets a new Generation: it tells the scoring
// functions' caches that the stored model changed (with the loaded model's generation, nb_predict went on
// scoring the model it had cached), and names the model's version marker (a Loaded model saved under
// another name would have collided with the original's).
func (st Store) Save(ctx context.Context, db nb.DB, m *nb.Model) error {
	if err := st.Families.Validate(m); err != nil {
		return err
	}
	m.Generation = nb.NewGeneration()
	return st.Put(ctx, db, m)
}

// put stores m, which the caller validated.
func (st Store) Put(ctx context.Context, db nb.DB, m *nb.Model) error {
	m.Version = nb.FormatVersion
	if err := st.EnsureStore(ctx, db); err != nil {
		return err
	}
	err := RetryConflicts(ctx, m.Name, func(ctx context.Context) error {
		return InTransaction(ctx, db, func(t *StoreTx) error { return st.SaveTx(ctx, t, m) })
	})
	if err != nil {
		return fmt.Errorf("store model %q: %w", m.Name, err)
	}
	return nil
}

func (st Store) SaveTx(ctx context.Context, t *StoreTx, m *nb.Model) error {
	q, conn := t.Querier, t.conn
	var old sql.NullString
	if err := q.QueryRowContext(ctx, queries.SQL("store_model_generation.sql"), m.Name).Scan(&old); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	t.Replacing(ctx, m.Name, old.String)
	if err := st.deleteTx(ctx, q, m.Name, old.String); err != nil {
		return err
	}
	var weight, groupBy any
	if m.Weight != "" {
		weight = m.Weight
	}
	if len(m.By) > 0 {
		b, err := json.Marshal(m.By)
		if err != nil {
			return err
		}
		groupBy = string(b)
	}
	params, err := json.Marshal(m.Params)
	if err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, queries.SQL("store_insert_model.sql"), m.Name, m.Label, m.LabelType, weight,
		m.Source, string(params), m.Rows, m.SkippedRows, m.Created, m.Version, m.Generation,
		m.IncompleteRows, m.Iterations, m.GradNorm, m.UnlabelledRows, m.LogLikelihood, groupBy); err != nil {
		return err
	}
	n := len(m.Features)
	names, kinds, types, stops := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ngrams, thresholds := make([]int32, n), make([]float64, n)
	for i, f := range m.Features {
		names[i], kinds[i], types[i], ngrams[i], stops[i], thresholds[i] = f.Name, string(f.Kind), f.Type, int32(f.Text.Ngrams), f.Text.StopWords, f.Binarize
	}
	if _, err := q.ExecContext(ctx, queries.SQL("store_insert_features.sql"), m.Name, names, kinds, types, ngrams, stops, thresholds); err != nil {
		return err
	}
	labels, counts, weights, priors := make([]string, len(m.Classes)), make([]int64, len(m.Classes)),
		make([]float64, len(m.Classes)), make([]any, len(m.Classes))
	for i, c := range m.Classes {
		labels[i], counts[i], weights[i] = c.Label, c.Count, c.Weight
		if m.Params.Text("priors") == nb.PriorsGiven {
			priors[i] = c.Prior
		}
	}
	if _, err := q.ExecContext(ctx, queries.SQL("store_insert_classes.sql"), m.Name, labels, counts, weights, priors); err != nil {
		return err
	}
	stats := []nb.Stats{m.Stats}
	for _, g := range m.Groups {
		stats = append(stats, g.Stats)
	}
	if err := st.saveStats(ctx, q, conn, m.Name, stats); err != nil {
		return err
	}
	if err := st.saveGroups(ctx, q, conn, m); err != nil {
		return err
	}
	return CreateMarker(ctx, q, m.Generation)
}

// deleteTx deletes model name, whose generation (version marker) is generation ("" if none), from every table.
func (st Store) deleteTx(ctx context.Context, q nb.Querier, name, generation string) error {
	for _, t := range []string{"models", "features", "classes", "groups", "group_classes"} {
		if _, err := q.ExecContext(ctx, queries.SQL("store_delete_"+t+".sql"), name); err != nil {
			return err
		}
	}
	for _, t := range st.Families.Tables() {
		stmt, err := queries.Render("store_delete_stats.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, stmt, name); err != nil {
			return err
		}
	}
	return DropMarker(ctx, q, generation)
}

// Load reads the model name from the store, in one transaction when q can start one (db.BeginTx), so that
// every table is read from the same committed version of the model.
func (st Store) Load(ctx context.Context, q nb.Querier, name string) (*nb.Model, error) {
	db, ok := q.(nb.DB)
	if !ok {
		return st.LoadTx(ctx, q, name)
	}
	var m *nb.Model
	err := InTransaction(ctx, db, func(t *StoreTx) error {
		var err error
		m, err = st.LoadTx(ctx, t.Querier, name) // through the connection, when there is one: the row reader uses it
		return err
	})
	return m, err
}

// LoadTx reads the model name with q as it is (q's own transaction, if any).
func (st Store) LoadTx(ctx context.Context, q nb.Querier, name string) (*nb.Model, error) {
	if ok, err := storeExists(ctx, q); err != nil {
		return nil, err
	} else if !ok {
		return nil, UnknownModelError(ctx, q, name)
	}
	if v, err := storeVersion(ctx, q); err != nil {
		return nil, err
	} else if v < nb.FormatVersion {
		return nil, errOldStore(v)
	}
	m := &nb.Model{}
	var weight, groupBy sql.NullString
	var params string
	err := q.QueryRowContext(ctx, queries.SQL("store_load_model.sql"), name).Scan(&m.Name, &m.Label, &m.LabelType, &weight,
		&m.Source, &params, &m.Rows, &m.SkippedRows, &m.Created, &m.Version, &m.Generation,
		&m.IncompleteRows, &m.Iterations, &m.GradNorm, &m.UnlabelledRows, &m.LogLikelihood, &groupBy)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, UnknownModelError(ctx, q, name)
	}
	if err != nil {
		return nil, fmt.Errorf("load model %q: %w", name, err)
	}
	m.Weight = weight.String
	if m.Params, err = st.decodeParams(name, params); err != nil {
		return nil, err
	}
	if groupBy.Valid {
		if err := json.Unmarshal([]byte(groupBy.String), &m.By); err != nil {
			return nil, fmt.Errorf("%w: model %q: nb.models.group_by: %v", nb.ErrInvalidModel, name, err)
		}
	}
	if err := loadRows(ctx, q, "store_load_features.sql", name, func(r *sql.Rows) error {
		var f nb.Feature
		err := r.Scan(&f.Name, &f.Kind, &f.Type, &f.Text.Ngrams, &f.Text.StopWords, &f.Binarize)
		m.Features = append(m.Features, f)
		return err
	}); err != nil {
		return nil, err
	}
	if err := loadRows(ctx, q, "store_load_classes.sql", name, func(r *sql.Rows) error {
		var c nb.Class
		var prior sql.NullFloat64
		err := r.Scan(&c.Label, &c.Count, &c.Weight, &prior)
		c.Prior = prior.Float64
		m.Classes = append(m.Classes, c)
		return err
	}); err != nil {
		return nil, err
	}
	if err := st.loadGroups(ctx, q, m); err != nil {
		return nil, err
	}
	if err := st.Families.Validate(m); err != nil {
		return nil, err
	}
	if err := checkTypes(ctx, q, m); err != nil {
		return nil, err
	}
	return m, nil
}

func loadRows(ctx context.Context, q nb.Querier, file, name string, scan func(*sql.Rows) error) error {
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
func (st Store) CurrentParams(ctx context.Context, q nb.Querier, name string) (generation string, p nb.Params, err error) {
	var params string
	err = q.QueryRowContext(ctx, queries.SQL("store_load_params.sql"), name).Scan(&generation, &params)
	if errors.Is(err, sql.ErrNoRows) {
		return "", p, UnknownModelError(ctx, q, name)
	}
	if err != nil {
		if ok, serr := storeExists(ctx, q); serr == nil && !ok {
			return "", p, UnknownModelError(ctx, q, name)
		}
		if v, verr := storeVersion(ctx, q); verr == nil && v < nb.FormatVersion {
			return "", p, errOldStore(v)
		}
		return "", p, err
	}
	p, err = st.decodeParams(name, params)
	return generation, p, err
}

// decodeParams reads nb.models.params: the JSON object, completed with the defaults of parameters declared
// since (nb.ParamSet.Complete).
func (st Store) decodeParams(name, text string) (nb.Params, error) {
	var p nb.Params
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		return p, fmt.Errorf("%w: model %q: nb.models.params: %v", nb.ErrInvalidModel, name, err)
	}
	p, err := st.Families.ParamSet().Complete(p)
	if err != nil {
		return p, fmt.Errorf("%w: model %q: nb.models.params: %v", nb.ErrInvalidModel, name, err)
	}
	return p, nil
}

// Drop deletes the model name; ErrUnknownModel if there is none.
func (st Store) Drop(ctx context.Context, db nb.DB, name string) error {
	err := RetryConflicts(ctx, name, func(ctx context.Context) error {
		return InTransaction(ctx, db, func(t *StoreTx) error {
			q := t.Querier
			var gen string
			err := q.QueryRowContext(ctx, queries.SQL("store_model_generation.sql"), name).Scan(&gen)
			if errors.Is(err, sql.ErrNoRows) {
				return UnknownModelError(ctx, q, name)
			}
			if err != nil {
				if ok, serr := storeExists(ctx, q); serr == nil && !ok {
					return UnknownModelError(ctx, q, name)
				}
				return err
			}
			t.Replacing(ctx, name, gen)
			return st.deleteTx(ctx, q, name, gen)
		})
	})
	if err != nil && !errors.Is(err, nb.ErrUnknownModel) {
		return fmt.Errorf("drop model %q: %w", name, err)
	}
	return err
}

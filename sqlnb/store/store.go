package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sqlnb/sqlnb/queries"
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
// Store reads and writes models in the nb schema of a database: a model's statistics go to and come from the
// tables of the families of its kinds.
type Store struct {
	Families nb.Families
}

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

// storeTx is one transaction on the model store. Its Querier runs the statements; conn is its connection
// when it has one (the row appender and reader work through it); keeper, when the connection's driver
// offers one (VersionKeeper), hears of every model version the transaction replaces or drops.
type StoreTx struct {
	nb.Querier
	conn   *sql.Conn
	keeper VersionKeeper
	gone   [][2]string // model, generation: the versions the transaction replaces
}

// VersionKeeper is an optional interface of the driver connection (database/sql/driver.Conn) that sqlnb's
// writers run their transaction on. Package udf's connections implement it, so that the scoring functions
// keep serving a replaced version to the transactions whose snapshot still sees it.
type VersionKeeper interface {
	// KeepVersion is called inside the transaction that replaces or drops version generation of model
	// name, before its rows are gone; q reads them.
	KeepVersion(ctx context.Context, q nb.Querier, name, generation string)
	// VersionGone is called after that transaction ended; committed reports whether the replacement took
	// effect.
	VersionGone(name, generation string, committed bool)
}

// replacing tells the keeper that the transaction replaces or drops version generation of model name.
func (t *StoreTx) Replacing(ctx context.Context, name, generation string) {
	if t.keeper == nil || generation == "" {
		return
	}
	t.keeper.KeepVersion(ctx, t.Querier, name, generation)
	t.gone = append(t.gone, [2]string{name, generation})
}

// ended tells the keeper how the transaction ended.
func (t *StoreTx) ended(committed bool) {
	for _, g := range t.gone {
		t.keeper.VersionGone(g[0], g[1], committed)
	}
}

// inTransaction runs fn in one transaction. When db can hand out a connection (*sql.DB, *sql.Conn), the
// transaction is opened on it with BEGIN, so that the row appender can write into it; else db.BeginTx.
func InTransaction(ctx context.Context, db nb.DB, fn func(t *StoreTx) error) error {
	var conn *sql.Conn
	switch d := db.(type) {
	case *sql.Conn:
		conn = d
	case interface {
		Conn(context.Context) (*sql.Conn, error)
	}:
		c, err := d.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		conn = c
	}
	if conn == nil {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(&StoreTx{Querier: tx}); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	t := &StoreTx{Querier: conn, conn: conn}
	_ = conn.Raw(func(dc any) error {
		t.keeper, _ = dc.(VersionKeeper)
		return nil
	})
	if _, err := conn.ExecContext(ctx, queries.SQL("store_begin.sql")); err != nil {
		return err
	}
	if err := fn(t); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), queries.SQL("store_rollback.sql"))
		t.ended(false)
		return err
	}
	if _, err := conn.ExecContext(ctx, queries.SQL("store_commit.sql")); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), queries.SQL("store_rollback.sql"))
		t.ended(false)
		return err
	}
	t.ended(true)
	return nil
}

// retryConflicts runs fn again (up to conflictAttempts times) while it fails with a DuckDB write-write
// conflict: two writers of the same model at once. The waits grow (10 ms, doubling, to 0.5 s) and are drawn
// at random below that bound, so that writers that collided do not collide again in step (with fixed
// waits, three goroutines appending to one model failed 2–13% of their appends). A conflict that remains is
// an error naming the model.
//
// Writers of one model in this process take turns (lockModel): with only DuckDB's optimistic conflicts, three
// goroutines appending at once on a loaded machine lost ten times in a row. fn gets the context that holds the
// turn: a write of the same model inside fn (merge storing into one of its inputs) goes on without waiting
// for itself.
func RetryConflicts(ctx context.Context, model string, fn func(ctx context.Context) error) error {
	ctx, unlock, err := lockModel(ctx, model)
	if err != nil {
		return err
	}
	defer unlock()
	for attempt := range conflictAttempts {
		if err = fn(ctx); err == nil || !isConflict(err) {
			return err
		}
		if attempt == conflictAttempts-1 {
			break // no wait after the last try
		}
		bound := min(10*time.Millisecond<<attempt, 500*time.Millisecond)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(bound/2 + rand.N(bound/2)):
		}
	}
	return fmt.Errorf("%w: model %q was written by another writer at the same time, %d times in a row: try again (%v)", nb.ErrConflict, model, conflictAttempts, err)
}

// modelTurns are the turns of this process's writers, per model name: a channel holding one token.
var (
	modelTurnsMu sync.Mutex
	modelTurns   = map[string]chan struct{}{}
)

// heldTurns is the context key of the model names whose turn the context holds.
type heldTurns struct{}

// lockModel waits for the turn to write model name (or for ctx to end) and returns the context that holds it
// and the function that gives it back. A context that holds the turn already gets it at once.
func lockModel(ctx context.Context, name string) (context.Context, func(), error) {
	held, _ := ctx.Value(heldTurns{}).(map[string]bool)
	if held[name] {
		return ctx, func() {}, nil
	}
	modelTurnsMu.Lock()
	turn, ok := modelTurns[name]
	if !ok {
		turn = make(chan struct{}, 1)
		modelTurns[name] = turn
	}
	modelTurnsMu.Unlock()
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return ctx, nil, ctx.Err()
	}
	next := map[string]bool{name: true}
	for k := range held {
		next[k] = true
	}
	return context.WithValue(ctx, heldTurns{}, next), func() { <-turn }, nil
}

// conflictAttempts is how many times retryConflicts tries (about 3 s of waiting in all at most).
const conflictAttempts = 10

// isConflict reports whether err is DuckDB's write-write conflict between transactions.
func isConflict(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Conflict on") || strings.Contains(msg, "write-write conflict")
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

// VersionMarker is the name of the catalog object (a sequence in schema nb) that marks a model version: it
// is created and dropped in the transactions that store and replace the version, so whether a connection's
// transaction sees it says which version that transaction sees (DuckDB's catalog is versioned like its
// tables). Scoring functions bind the version their caller's snapshot sees.
func VersionMarker(generation string) string { return "v_" + generation }

func CreateMarker(ctx context.Context, q nb.Querier, generation string) error {
	return createMarker(ctx, q, generation, false)
}

// createMarker creates the marker of generation; ifMissing keeps one that exists (Upgrade).
func createMarker(ctx context.Context, q nb.Querier, generation string, ifMissing bool) error {
	stmt, err := queries.Render("store_create_marker.tmpl.sql", queries.Marker{Name: VersionMarker(generation), IfMissing: ifMissing})
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, stmt)
	return err
}

func DropMarker(ctx context.Context, q nb.Querier, generation string) error {
	if generation == "" {
		return nil
	}
	stmt, err := queries.Render("store_drop_marker.tmpl.sql", queries.Marker{Name: VersionMarker(generation)})
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, stmt)
	return err
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

// ModelNames lists the stored models, sorted (none if the store does not exist).
func ModelNames(ctx context.Context, q nb.Querier) ([]string, error) {
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
func UnknownModelError(ctx context.Context, q nb.Querier, name string) error {
	names, _ := ModelNames(ctx, q)
	have := "there are no models yet: train one with nb_train or sqlnb train"
	if len(names) > 0 {
		const shown = 20
		quoted := make([]string, 0, min(len(names), shown+1))
		for _, n := range names[:min(len(names), shown)] {
			quoted = append(quoted, fmt.Sprintf("%q", n))
		}
		if len(names) > shown {
			quoted = append(quoted, fmt.Sprintf("… %d more: sqlnb models list, FROM nb_models()", len(names)-shown))
		}
		have = "models: " + strings.Join(quoted, ", ")
		if near := nearNames(name, names); len(near) > 0 {
			have = "did you mean " + strings.Join(near, " or ") + "? " + have
		}
	}
	return fmt.Errorf("%w %q (%s)", nb.ErrUnknownModel, name, have)
}

// nearNames returns, quoted, the names that differ from name only in case or by at most two edits (a typo),
// closest first, at most three.
func nearNames(name string, names []string) []string {
	type cand struct {
		n string
		d int
	}
	var cs []cand
	lower := strings.ToLower(name)
	for _, n := range names {
		d := editDistance(lower, strings.ToLower(n))
		if d <= min(2, len([]rune(name))/3+1) {
			cs = append(cs, cand{n, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(len(cs), 3)] {
		out = append(out, fmt.Sprintf("%q", c.n))
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, in runes.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}

// errOldStore explains what to do with a store of an earlier format that was opened without upgrading.
func errOldStore(version int) error {
	return fmt.Errorf("%w: the model store in this database has format version %d; this sqlnb reads version %d: "+
		"open the database once with a writable sqlnb command (or run `sqlnb models upgrade`) to upgrade it", nb.ErrInvalidModel, version, nb.FormatVersion)
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

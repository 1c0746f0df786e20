package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

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

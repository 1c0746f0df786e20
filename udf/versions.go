package udf

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/sqlnb/store"
)

// Model versions and snapshots.
//
// Every stored version of a model (each training, append, forget, merge, import and nb_set) has a
// generation and a marker in DuckDB's catalog, the sequence nb."v_<generation>" (store.VersionMarker),
// created in the transaction that stores the version and dropped in the one that replaces it. DuckDB
// versions its catalog per transaction like its tables, so whether a transaction sees a marker is whether
// it sees that version. A scoring function's bind asks DuckDB, with the caller's client context
// (duckdb_catalog_get_entry), which of the model's versions the caller's snapshot sees — the newest
// committed, or one of the versions this process holds compiled, newest first — and binds that one: every
// call of one statement, and every statement of one transaction, binds the version of its snapshot.
//
// The statistics of the newest committed version are read from the store (concurrent loads of one version
// share one load). An older version comes from the cache of compiled versions: the writer's connection
// (VersionKeeper) compiles the version it replaces, inside its transaction, when this process may still
// need it, and a replaced version stays cached while
//   - a transaction or statement of a connection sqlnb handed out, which began before the replacement
//     committed, is still open (exact: sqlnb sees BEGIN, COMMIT, ROLLBACK and each statement on its
//     connections), or
//   - it is among the versionsKept most recently used replaced versions of the model (for connections
//     whose transactions sqlnb does not see: other clients of the loadable extension).
// A snapshot whose version is no longer kept gets errVersionGone, naming the model and saying to retry:
// never a newer version, never a mixture.

// versionsKept is how many replaced versions of one model the cache keeps for transactions sqlnb does not
// see begin and end.
const versionsKept = 4

// ticks orders transaction starts and version replacements in this process: every BEGIN, statement and
// replacement takes the next value.
var ticks atomic.Uint64

// modelVersion is one compiled version of a model.
type modelVersion struct {
	scorer *sqlnb.Scorer
	// used is the tick of the last bind that took the version; replaced the tick when a newer version was
	// committed or seen (0: the newest known).
	used, replaced uint64
}

func (v *modelVersion) is(gen string, params sqlnb.Params) bool {
	return v.scorer.Model.Generation == gen && v.scorer.Model.Params.Equal(params)
}

// errVersionGone is the error of a snapshot whose version of model name this process no longer holds.
func errVersionGone(name string) error {
	return fmt.Errorf("%w: model %q: your transaction sees a version of it that is no longer kept, or none: it was stored, "+
		"replaced or dropped after your transaction began; commit or roll back, and run the statement again", sqlnb.ErrUnknownModel, name)
}

// scorerFor returns the version of model name that the transaction of the client context cctx sees (see
// above); without a client context (cctx.Ptr nil), the newest committed.
func (r *registry) scorerFor(ctx context.Context, name string, cctx mapping.ClientContext) (*sqlnb.Scorer, error) {
	r.mu.Lock()
	pinned := r.pins[name]
	r.mu.Unlock()
	if pinned != nil {
		return pinned, nil
	}
	gen, params, err := sqlnb.CurrentParams(ctx, r.lookup, name)
	gone := errors.Is(err, sqlnb.ErrUnknownModel) // dropped, or never stored
	if err != nil && !gone {
		return nil, err
	}
	if cctx.Ptr == nil {
		if gone {
			return nil, err
		}
		return r.version(ctx, name, gen, params)
	}
	if !gone {
		found, ok := seesEntry(cctx, r.catalog, entrySequence, "nb", store.VersionMarker(gen))
		if !ok {
			return nil, fmt.Errorf("model %q: cannot tell which version your transaction sees: DuckDB's catalog %q could not be read", name, r.catalog)
		}
		if found {
			return r.version(ctx, name, gen, params)
		}
	}
	for _, v := range r.older(name, gen) {
		if found, ok := seesEntry(cctx, r.catalog, entrySequence, "nb", store.VersionMarker(v.scorer.Model.Generation)); ok && found {
			r.use(v)
			return v.scorer, nil
		}
	}
	if gone {
		return nil, err
	}
	return nil, errVersionGone(name)
}

// version returns version gen (with hyperparameters params) of model name, the newest committed one when
// it was read: cached, else loaded from the store by one of the binds that ask for it at once.
func (r *registry) version(ctx context.Context, name, gen string, params sqlnb.Params) (*sqlnb.Scorer, error) {
	if v := r.cached(name, gen, params); v != nil {
		r.use(v)
		return v.scorer, nil
	}
	x, err, _ := r.loads.Do(name+"\x00"+gen, func() (any, error) {
		if v := r.cached(name, gen, params); v != nil {
			return v, nil
		}
		r.mu.Lock()
		before := r.beforeLoad
		r.mu.Unlock()
		if before != nil {
			before()
		}
		m, err := sqlnb.Load(ctx, r.lookup, name)
		if err != nil {
			return nil, err
		}
		if m.Generation != gen {
			// A newer version was committed since gen was read: gen's rows are gone from the store, but the
			// writer may have kept it compiled.
			if v := r.cachedGeneration(name, gen); v != nil {
				return v, nil
			}
			return nil, errVersionGone(name)
		}
		s, err := sqlnb.Compile(m)
		if err != nil {
			return nil, err
		}
		// m's hyperparameters differ from params only after a plain UPDATE of nb.models, which makes no
		// new version: it counts from its commit.
		return r.keep(name, s, true), nil
	})
	if err != nil {
		return nil, err
	}
	v := x.(*modelVersion)
	r.use(v)
	return v.scorer, nil
}

// cached returns the cached version gen of name with hyperparameters params, or nil.
func (r *registry) cached(name, gen string, params sqlnb.Params) *modelVersion {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.versions[name] {
		if v.is(gen, params) {
			return v
		}
	}
	return nil
}

// cachedGeneration returns the cached version gen of name, whatever its hyperparameters (the newest of
// them), or nil.
func (r *registry) cachedGeneration(name, gen string) *modelVersion {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.versions[name]
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].scorer.Model.Generation == gen {
			return vs[i]
		}
	}
	return nil
}

// older returns the cached versions of name other than generation gen, newest first.
func (r *registry) older(name, gen string) []*modelVersion {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*modelVersion
	vs := r.versions[name]
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].scorer.Model.Generation != gen {
			out = append(out, vs[i])
		}
	}
	return out
}

// use marks v as taken by a bind now.
func (r *registry) use(v *modelVersion) {
	t := ticks.Add(1)
	r.mu.Lock()
	v.used = t
	r.mu.Unlock()
}

// keep adds s to the cache of model name unless a version of the same generation and hyperparameters is
// there (which it then returns), and prunes the cache. newest: s is the newest committed version, so every
// other version of the model is marked replaced now (if not already).
func (r *registry) keep(name string, s *sqlnb.Scorer, newest bool) *modelVersion {
	t := ticks.Add(1)
	open := oldestOpen()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.versions[name] {
		if v.is(s.Model.Generation, s.Model.Params) {
			return v
		}
	}
	v := &modelVersion{scorer: s, used: t}
	if !newest {
		// Kept for a snapshot that may see it: replaced, and not used by any bind yet (the first to go).
		v.replaced, v.used = t, 0
	}
	if newest {
		for _, o := range r.versions[name] {
			if o.replaced == 0 {
				o.replaced = t
			}
		}
	}
	r.versions[name] = append(r.versions[name], v)
	r.pruneLocked(name, open)
	return v
}

// replaced marks version gen of model name replaced now (its replacement committed) and prunes.
func (r *registry) replaced(name, gen string) {
	t := ticks.Add(1)
	open := oldestOpen()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.versions[name] {
		if v.scorer.Model.Generation == gen && v.replaced == 0 {
			v.replaced = t
		}
	}
	r.pruneLocked(name, open)
}

// prune drops the versions no transaction needs any more (see above), for every model.
func (r *registry) prune() {
	open := oldestOpen()
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range r.versions {
		r.pruneLocked(name, open)
	}
}

// pruneLocked keeps the versions of name that are the newest known, those replaced after the oldest
// transaction or statement still open on sqlnb's connections began (at tick open; 0: none is open), and
// the versionsKept most recently used of the other replaced ones. r.mu is held.
func (r *registry) pruneLocked(name string, open uint64) {
	vs := r.versions[name]
	var replaced []*modelVersion
	for _, v := range vs {
		if v.replaced != 0 && (open == 0 || open > v.replaced) {
			replaced = append(replaced, v)
		}
	}
	if len(replaced) <= versionsKept {
		return
	}
	slices.SortFunc(replaced, func(a, b *modelVersion) int { return cmp.Compare(b.used, a.used) })
	drop := map[*modelVersion]bool{}
	for _, v := range replaced[versionsKept:] {
		drop[v] = true
	}
	r.versions[name] = slices.DeleteFunc(vs, func(v *modelVersion) bool { return drop[v] })
	if len(r.versions[name]) == 0 {
		delete(r.versions, name)
	}
}

// oldestOpen returns the tick at which the oldest transaction or statement still open on a connection that
// sqlnb handed out began (0: none is open).
func oldestOpen() uint64 {
	liveMu.Lock()
	regs := make([]*registry, 0, len(live))
	for r := range live {
		regs = append(regs, r)
	}
	liveMu.Unlock()
	var oldest uint64
	for _, r := range regs {
		r.mu.Lock()
		for _, st := range r.conns {
			if t := st.openSince(); t != 0 && (oldest == 0 || t < oldest) {
				oldest = t
			}
		}
		r.mu.Unlock()
	}
	return oldest
}

// openOtherThan reports whether a connection sqlnb handed out, other than self, has a transaction or
// statement open.
func openOtherThan(self *connState) bool {
	liveMu.Lock()
	regs := make([]*registry, 0, len(live))
	for r := range live {
		regs = append(regs, r)
	}
	liveMu.Unlock()
	for _, r := range regs {
		r.mu.Lock()
		for _, st := range r.conns {
			if st != self && st.openSince() != 0 {
				r.mu.Unlock()
				return true
			}
		}
		r.mu.Unlock()
	}
	return false
}

// sameDatabase returns the live registries of r's database: r, and for a file the others opened on it
// (with other settings).
func (r *registry) sameDatabase() []*registry {
	liveMu.Lock()
	defer liveMu.Unlock()
	out := []*registry{r}
	if r.key == "" {
		return out
	}
	path := keyPath(r.key)
	for o := range live {
		if o != r && o.key != "" && keyPath(o.key) == path {
			out = append(out, o)
		}
	}
	return out
}

func keyPath(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == '?' {
			return key[:i]
		}
	}
	return key
}

// KeepVersion implements store.VersionKeeper: inside the transaction that replaces version gen of model
// name, each registry of the database that may still need the version — it has the model cached (a
// statement may be binding it), or a transaction or statement is open on another of sqlnb's connections
// (its snapshot may still see it) — gets it compiled from the writer's transaction, once.
func (c *conn) KeepVersion(ctx context.Context, q nb.Querier, name, gen string) {
	var s *sqlnb.Scorer
	others := openOtherThan(c.state)
	for _, r := range c.reg.sameDatabase() {
		r.mu.Lock()
		hot := len(r.versions[name]) > 0
		r.mu.Unlock()
		if !hot && !others || r.cachedGeneration(name, gen) != nil {
			continue
		}
		if s == nil {
			m, err := sqlnb.LoadTx(ctx, q, name)
			if err != nil || m.Generation != gen {
				return // the version cannot be read: a snapshot that sees it gets errVersionGone
			}
			if s, err = sqlnb.Compile(m); err != nil {
				return
			}
		}
		r.keep(name, s, false)
	}
}

// VersionGone implements store.VersionKeeper: once the replacement committed, version gen of model name
// counts as replaced from now on.
func (c *conn) VersionGone(name, gen string, committed bool) {
	if !committed {
		return
	}
	for _, r := range c.reg.sameDatabase() {
		r.replaced(name, gen)
	}
}

// pin makes version v of a model bindable under a name of its own until unpin is called: the statements a
// table function runs on sqlnb's connection (nb_eval's) score the version their caller's snapshot sees,
// not the one their own transaction would.
func (r *registry) pin(v *sqlnb.Scorer) (name string, unpin func()) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name = "__sqlnb_version_" + hex.EncodeToString(b[:]) + "_" + v.Model.Name
	r.mu.Lock()
	r.pins[name] = v
	r.mu.Unlock()
	return name, func() {
		r.mu.Lock()
		delete(r.pins, name)
		r.mu.Unlock()
	}
}

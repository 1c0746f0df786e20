package udf

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
	"golang.org/x/sync/singleflight"

	"github.com/sqlnb/sqlnb/internal/duckdbline"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// DB is a DuckDB database opened by sqlnb: every connection of its pool can call the nb_* functions.
type DB struct {
	*sql.DB
	reg  *registry
	once sync.Once
}

// registry is the per-database state behind the registered functions: the connector, an internal
// pool for binders and table functions, and the compiled-model cache. A file opened twice in one
// process shares one registry (DuckDB shares the database too).
type registry struct {
	key       string
	connector *duckdb.Connector
	internal  *sql.DB
	// lookup is the pool of the model lookups of scalar binds (scorerFor), apart from internal's: a table
	// function (nb_eval, nb_train...) holds an internal connection while its queries bind scoring functions,
	// so with a bounded pool (the extension's) lookups from internal deadlocked once every connection was
	// held by such a call. A lookup holds its connection for one query and takes no other.
	lookup *sql.DB

	// catalog is the database's name in DuckDB's catalog (where the version markers live).
	catalog string
	// upgradedFrom is the format version of the model store that opening the database upgraded (0: none).
	upgradedFrom int

	mu         sync.Mutex
	refs       int
	registered bool
	versions   map[string][]*modelVersion // per model its compiled versions (versions.go)
	conns      map[uint64]*connState      // the connections Open handed out, by DuckDB connection id
	folds      map[string][]*sqlnb.Scorer // fold sets of running cross-validations
	pins       map[string]*sqlnb.Scorer   // versions pinned for the statements of a table function (pin)
	loads      singleflight.Group         // concurrent loads of one version share one
	// beforeLoad, when set (by tests only, SetBeforeLoad), runs before a version is loaded from the store.
	beforeLoad func()
}

var (
	registriesMu sync.Mutex
	registries   = map[string]*registry{}
	// live lists every open registry (in-memory ones too): a writer's connection tells every registry of its
	// database of the versions it replaces (VersionKeeper). liveMu guards it (not registriesMu, which Open
	// holds while the first connection runs statements).
	liveMu sync.Mutex
	live   = map[*registry]bool{}
)

// Open opens the DuckDB database dsn ("" or ":memory:" for a new in-memory database, else a file path
// with optional ?key=value settings) and registers sqlnb's functions on it.
//
// A database file that does not exist yet is created in DuckDB's storage format
// duckdbline.DefaultStorageVersion (v1.5.0), which DuckDB 1.5 and 2.0 both read, unless the DSN names a
// storage_compatibility_version itself (v2.0.0, or latest: the newest format of the DuckDB in the process).
// An existing file keeps its format either way.
func Open(dsn string) (*DB, error) {
	given, key := dsn, ""
	if dsn != "" && !strings.HasPrefix(dsn, ":memory:") {
		path, query, _ := strings.Cut(dsn, "?")
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("open %q: %w", dsn, err)
		}
		key = abs
		if query != "" {
			key += "?" + query
		}
		dsn = withStorageVersion(key)
	}
	registriesMu.Lock()
	defer registriesMu.Unlock()
	if reg := registries[key]; key != "" && reg != nil {
		reg.mu.Lock()
		reg.refs++
		reg.mu.Unlock()
		return &DB{DB: sql.OpenDB(connector{reg}), reg: reg}, nil
	}
	c, err := duckdb.NewConnector(dsn, nil)
	if err != nil {
		return nil, fmt.Errorf("open %q: %w", given, storageAdvice(err))
	}
	reg, err := newRegistry(key, c, 0)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("open %q: %w", given, storageAdvice(err))
	}
	if key != "" {
		registries[key] = reg
	}
	return &DB{DB: sql.OpenDB(connector{reg}), reg: reg}, nil
}

// Attach registers sqlnb's functions on the database behind connector c, which can hand out at most
// maxConns connections at once: the loadable extension (extension/) attaches the connections it keeps from
// LOAD. The database stays attached for the life of the process.
func Attach(c *duckdb.Connector, maxConns int) error {
	registriesMu.Lock()
	defer registriesMu.Unlock()
	_, err := newRegistry("", c, maxConns)
	return err
}

// newRegistry registers the functions on the database of c through its first connection, notes the
// catalog name, upgrades an older model store and lists the registry as live. The caller holds
// registriesMu. maxConns bounds the internal pool (0: no bound).
func newRegistry(key string, c *duckdb.Connector, maxConns int) (*registry, error) {
	reg := &registry{key: key, connector: c, refs: 1, versions: map[string][]*modelVersion{}, conns: map[uint64]*connState{},
		pins: map[string]*sqlnb.Scorer{}}
	reg.internal = sql.OpenDB(connector{reg})
	reg.internal.SetMaxIdleConns(2)
	reg.lookup = sql.OpenDB(connector{reg})
	reg.lookup.SetMaxIdleConns(1)
	if maxConns > 0 {
		lookups := max(1, maxConns/4)
		if maxConns < 2 {
			reg.lookup.Close()
			reg.lookup = reg.internal // one connection: nothing to split
			lookups = 0
		}
		reg.internal.SetMaxOpenConns(maxConns - lookups)
		reg.internal.SetMaxIdleConns(maxConns - lookups)
		if lookups > 0 {
			reg.lookup.SetMaxOpenConns(lookups)
			reg.lookup.SetMaxIdleConns(lookups)
		}
	}
	// The first connection registers the functions for the whole database.
	closeAll := func() {
		if reg.lookup != reg.internal {
			reg.lookup.Close()
		}
		reg.internal.Close()
	}
	if err := reg.internal.PingContext(context.Background()); err != nil {
		closeAll()
		return nil, err
	}
	if err := reg.internal.QueryRowContext(context.Background(), queries.SQL("current_database.sql")).Scan(&reg.catalog); err != nil {
		closeAll()
		return nil, err
	}
	liveMu.Lock()
	live[reg] = true
	liveMu.Unlock()
	if key != "" || maxConns > 0 {
		// A model store of an earlier format is upgraded on open; if the database is read-only this fails and
		// loading a model says what to do.
		if from, err := sqlnb.Upgrade(context.Background(), reg.internal); err == nil && from != nb.FormatVersion {
			reg.upgradedFrom = from
		}
	}
	return reg, nil
}

// UpgradedFrom returns the format version of the model store that opening the database upgraded to
// nb.FormatVersion, or 0 if it was current (or there was none).
func (db *DB) UpgradedFrom() int { return db.reg.upgradedFrom }

// Close closes the pool; the database closes when the last DB opened on it is closed.
func (db *DB) Close() error {
	var err error
	db.once.Do(func() {
		err = db.DB.Close()
		registriesMu.Lock()
		defer registriesMu.Unlock()
		r := db.reg
		r.mu.Lock()
		r.refs--
		last := r.refs == 0
		r.mu.Unlock()
		if last {
			liveMu.Lock()
			delete(live, r)
			liveMu.Unlock()
			if r.key != "" {
				delete(registries, r.key)
			}
			if r.lookup != r.internal {
				err = errors.Join(err, r.lookup.Close())
			}
			err = errors.Join(err, r.internal.Close(), r.connector.Close())
		}
	})
	return err
}

// Forget drops the cached compiled models, so the next query reloads them from the store.
func (db *DB) Forget() {
	db.reg.mu.Lock()
	clear(db.reg.versions)
	db.reg.mu.Unlock()
}

// connector hands out connections of a registry's database. It has no Close method: sql.DB must not
// close the shared duckdb.Connector, the registry does.
type connector struct{ reg *registry }

func (c connector) Driver() driver.Driver { return duckdb.Driver{} }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.reg.connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := rawConnection(dc)
	if err != nil {
		dc.Close()
		return nil, err
	}
	w := &conn{Conn: dc.(*duckdb.Conn), state: &connState{}, reg: c.reg}
	id := connID(raw)
	c.reg.mu.Lock()
	defer c.reg.mu.Unlock()
	c.reg.conns[id] = w.state
	w.closed = func() {
		c.reg.mu.Lock()
		delete(c.reg.conns, id)
		c.reg.mu.Unlock()
	}
	if c.reg.registered {
		return w, nil
	}
	if err := registerAll(raw, c.reg); err != nil {
		dc.Close()
		return nil, fmt.Errorf("register sqlnb functions: %w", err)
	}
	c.reg.registered = true
	return w, nil
}

// inExplicitTx reports whether the connection with DuckDB id id, handed out by Open, has an explicit
// transaction open.
func (r *registry) inExplicitTx(id uint64) bool {
	r.mu.Lock()
	st := r.conns[id]
	r.mu.Unlock()
	if st == nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.tx
}

// statementContext returns the context of the statement running on the connection with DuckDB id id
// (connState.ctx: recorded by each statement and prepared statement's execution), or context.Background()
// for a connection Open did not hand out.
func (r *registry) statementContext(id uint64) context.Context {
	r.mu.Lock()
	st := r.conns[id]
	r.mu.Unlock()
	if st == nil {
		return context.Background()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ctx == nil {
		return context.Background()
	}
	return st.ctx
}

// rawConnection returns the C connection inside a duckdb-go connection. duckdb-go keeps it unexported;
// the field is read by reflection, checked by name and type (duckdb-go is pinned in go.mod).
// rawConnOf returns the DuckDB connection behind conn, for calls that outlive conn.Raw (conn stays reserved
// by its caller while they run).
func rawConnOf(conn *sql.Conn) (mapping.Connection, error) {
	var raw mapping.Connection
	err := conn.Raw(func(dc any) error {
		var err error
		raw, err = rawConnection(dc.(driver.Conn))
		return err
	})
	return raw, err
}

func rawConnection(c driver.Conn) (mapping.Connection, error) {
	if w, ok := c.(interface{ Unwrap() driver.Conn }); ok {
		c = w.Unwrap()
	}
	dc, ok := c.(*duckdb.Conn)
	if !ok {
		return mapping.Connection{}, fmt.Errorf("connection is a %T, not a duckdb-go connection", c)
	}
	f := reflect.ValueOf(dc).Elem().FieldByName("conn")
	if !f.IsValid() || f.Type() != reflect.TypeOf(mapping.Connection{}) {
		return mapping.Connection{}, errors.New("duckdb-go's Conn has no conn field of type mapping.Connection: update udf.rawConnection")
	}
	return *(*mapping.Connection)(unsafe.Pointer(f.UnsafeAddr())), nil
}

// withStorageVersion adds storage_compatibility_version=duckdbline.DefaultStorageVersion to a file DSN that
// names none: DuckDB applies it to a file it creates (an existing file keeps its format).
func withStorageVersion(dsn string) string {
	path, query, _ := strings.Cut(dsn, "?")
	for _, kv := range strings.Split(query, "&") {
		if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(strings.TrimSpace(k), "storage_compatibility_version") {
			return dsn
		}
	}
	if query == "" {
		return path + "?storage_compatibility_version=" + duckdbline.DefaultStorageVersion
	}
	return dsn + "&storage_compatibility_version=" + duckdbline.DefaultStorageVersion
}

// storageAdvice adds what to do to DuckDB's error for a file in a storage format newer than the DuckDB in
// the process reads (a file written by DuckDB 2.0 in its own format, opened by sqlnb built on 1.5).
func storageAdvice(err error) error {
	if !strings.Contains(err.Error(), "Trying to read a database file with version number") {
		return err
	}
	return fmt.Errorf("%w\nThis sqlnb runs DuckDB %s, which cannot read the file's storage format: open it with sqlnb built on "+
		"DuckDB 2.0 (the default build), or copy it to a format both read with DuckDB 2.0: ATTACH 'new.duckdb' AS dst "+
		"(STORAGE_VERSION 'v1.5.0'); COPY FROM DATABASE src TO dst", err, hostLine())
}

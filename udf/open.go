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

	"github.com/sqlnb/sqlnb/sqlnb"
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

	mu         sync.Mutex
	refs       int
	registered bool
	cache      map[string]*sqlnb.Scorer
	folds      map[string][]*sqlnb.Scorer // fold sets of running cross-validations
}

var (
	registriesMu sync.Mutex
	registries   = map[string]*registry{}
)

// Open opens the DuckDB database dsn ("" or ":memory:" for a new in-memory database, else a file path
// with optional ?key=value settings) and registers sqlnb's functions on it.
func Open(dsn string) (*DB, error) {
	key := ""
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
		dsn = key
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
		return nil, fmt.Errorf("open %q: %w", dsn, err)
	}
	reg := &registry{key: key, connector: c, refs: 1, cache: map[string]*sqlnb.Scorer{}}
	reg.internal = sql.OpenDB(connector{reg})
	reg.internal.SetMaxIdleConns(2)
	// The first connection registers the functions for the whole database.
	if err := reg.internal.PingContext(context.Background()); err != nil {
		reg.internal.Close()
		c.Close()
		return nil, fmt.Errorf("open %q: %w", dsn, err)
	}
	if key != "" {
		registries[key] = reg
		// A model store of an earlier format is upgraded on open; if the database is read-only this fails and
		// loading a model says what to do.
		_, _ = sqlnb.Upgrade(context.Background(), reg.internal)
	}
	return &DB{DB: sql.OpenDB(connector{reg}), reg: reg}, nil
}

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
			if r.key != "" {
				delete(registries, r.key)
			}
			err = errors.Join(err, r.internal.Close(), r.connector.Close())
		}
	})
	return err
}

// Forget drops the cached compiled models, so the next query reloads them from the store.
func (db *DB) Forget() {
	db.reg.mu.Lock()
	clear(db.reg.cache)
	db.reg.mu.Unlock()
}

// connector hands out connections of a registry's database. It has no Close method: sql.DB must not
// close the shared duckdb.Connector, the registry does.
type connector struct{ reg *registry }

func (c connector) Driver() driver.Driver { return duckdb.Driver{} }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.reg.connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c.reg.mu.Lock()
	defer c.reg.mu.Unlock()
	if c.reg.registered {
		return conn, nil
	}
	raw, err := rawConnection(conn)
	if err == nil {
		err = registerAll(raw, c.reg)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("register sqlnb functions: %w", err)
	}
	c.reg.registered = true
	return conn, nil
}

// rawConnection returns the C connection inside a duckdb-go connection. duckdb-go keeps it unexported;
// the field is read by reflection, checked by name and type (duckdb-go is pinned in go.mod).
func rawConnection(c driver.Conn) (mapping.Connection, error) {
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

// scorer returns the compiled model name, from the cache while its generation and hyperparameters
// are unchanged in the store.
func (r *registry) scorer(ctx context.Context, name string) (*sqlnb.Scorer, error) {
	gen, params, err := sqlnb.CurrentParams(ctx, r.internal, name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	s := r.cache[name]
	r.mu.Unlock()
	if s != nil && s.Model.Generation == gen && s.Model.Params == params {
		return s, nil
	}
	m, err := sqlnb.Load(ctx, r.internal, name)
	if err != nil {
		return nil, err
	}
	if s, err = sqlnb.Compile(m); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.cache[name] = s
	r.mu.Unlock()
	return s, nil
}

package target

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"sync/atomic"

	sqlite3 "github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// SQLite is an embedded database file in WAL mode. Its "server" is the
// shootout process itself, so its CPU figures include the client's.
type SQLite struct{}

func (SQLite) Name() string             { return "sqlite" }
func (SQLite) Dialect() dialect.Dialect { return dialect.Dialect{Flavor: dialect.SQLite} }
func (SQLite) Available() error         { return nil }
func (SQLite) Protocol() proto.Name     { return proto.SQL }
func (SQLite) Embedded() bool           { return true }
func (SQLite) Managed() bool            { return true }

// sqliteDrivers numbers the database/sql drivers registered per instance:
// database/sql has no way to unregister one, and each carries its pragmas.
var sqliteDrivers int64

type sqliteInstance struct {
	dir     string
	keep    bool
	db      *sql.DB
	applied map[string]string
}

// sqlitePragmas are the documented settings: WAL so readers do not block
// the writer, synchronous=NORMAL (durable at checkpoints, the usual choice
// with WAL), a busy timeout so writers queue instead of failing at once.
var sqlitePragmas = []string{"journal_mode", "synchronous", "busy_timeout", "cache_size", "page_size", "mmap_size",
	"wal_autocheckpoint", "locking_mode", "temp_store", "foreign_keys", "auto_vacuum"}

func (s SQLite) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	dir, err := makeServerDir(opt, "sqlite")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			removeServerDir(dir, opt.KeepData)
		}
	}()
	in := &sqliteInstance{dir: dir, keep: opt.KeepData, applied: map[string]string{"journal_mode": "WAL", "synchronous": "NORMAL", "busy_timeout": "10000"}}
	if opt.MemoryBudget > 0 {
		// negative cache_size is KiB; it is per connection and allocated
		// only as pages are read
		in.applied["cache_size"] = fmt.Sprint(-int64(float64(opt.MemoryBudget)*CacheShare) / 1024)
	}
	for k, v := range opt.Settings {
		in.applied[k] = v
	}
	in.db, err = openSQLite(filepath.Join(dir, "shootout.db"), in.applied)
	if err != nil {
		return nil, err
	}
	if err := in.db.PingContext(ctx); err != nil {
		in.db.Close()
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	var mode string
	if err := in.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return nil, err
	}
	logf(opt.Log, "opened sqlite %s (journal_mode %s)", filepath.Join(dir, "shootout.db"), mode)
	return in, nil
}

// openSQLite opens the database file at path; every pooled connection
// runs the pragmas, since most are per connection.
func openSQLite(path string, pragmas map[string]string) (*sql.DB, error) {
	driverName := fmt.Sprintf("sqlite3-shootout-%d", atomic.AddInt64(&sqliteDrivers, 1))
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		for _, k := range slices.Sorted(maps.Keys(pragmas)) {
			if _, err := c.Exec(fmt.Sprintf("PRAGMA %s=%s", k, pragmas[k]), nil); err != nil {
				return fmt.Errorf("PRAGMA %s=%s: %w", k, pragmas[k], err)
			}
		}
		return nil
	}})
	return sql.Open(driverName, "file:"+path)
}

func (in *sqliteInstance) Dialect() dialect.Dialect { return dialect.Dialect{Flavor: dialect.SQLite} }
func (in *sqliteInstance) DB() *sql.DB              { return in.db }
func (in *sqliteInstance) Endpoint() proto.Endpoint {
	return proto.Endpoint{Protocol: proto.SQL, Network: "file", Address: filepath.Join(in.dir, "shootout.db"), Dialect: in.Dialect()}
}
func (in *sqliteInstance) PIDs() []int                { return []int{os.Getpid()} }
func (in *sqliteInstance) DataDir() string            { return in.dir }
func (in *sqliteInstance) Applied() map[string]string { return in.applied }

func (in *sqliteInstance) Version(ctx context.Context) (string, error) {
	var v string
	err := in.db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v)
	return v, err
}

func (in *sqliteInstance) Settings(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range sqlitePragmas {
		var v sql.NullString
		if err := in.db.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err != nil {
			return nil, fmt.Errorf("PRAGMA %s: %w", p, err)
		}
		out[p] = v.String
	}
	return out, nil
}

func (in *sqliteInstance) Settle(ctx context.Context) (string, error) {
	_, err := in.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return "", err
}

// WriteBack moves the write-ahead log into the database file, to the end.
func (in *sqliteInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	_, err := in.Settle(ctx)
	return WriteBackResult{}, err
}

func (in *sqliteInstance) Stop(ctx context.Context) error {
	err := in.db.Close()
	removeServerDir(in.dir, in.keep)
	return err
}

// Package target starts and stops the database servers under test (private
// MariaDB with an engine, PostgreSQL, embedded SQLite) or wraps an external
// server given by URL, or a native key-value server (Redis, Tarantool,
// memcached). A target knows nothing about workloads: it offers clients of
// its protocol (a SQL pool and its dialect, or a native endpoint) and the
// evidence a result needs.
package target

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/units"
)

// Target is one kind of server a user can name.
type Target interface {
	Name() string
	// Protocol is what its clients speak; a SQL target is also a
	// SQLTarget, with its dialect.
	Protocol() proto.Name
	// Available is nil when the target can run here, else why not and the
	// command that fixes it.
	Available() error
	// Managed is true when shootout starts the server itself.
	Managed() bool
	// Embedded is true when the database runs inside shootout's own
	// process, so no limit can apply to it alone.
	Embedded() bool
	Start(ctx context.Context, opt StartOptions) (Instance, error)
}

// SettingsChecker is a target whose own settings (a cluster's nodes) can be
// checked before anything starts, so a bad one is refused with the plan
// rather than failing its cells one by one.
type SettingsChecker interface {
	CheckSettings(settings map[string]string) error
}

// SQLTarget is a target clients reach by SQL.
type SQLTarget interface {
	Target
	Dialect() dialect.Dialect
}

// NativeTarget is a target of a native protocol; Engine names the
// storage behind it where the server has several ("memtx"), else "".
type NativeTarget interface {
	Target
	Engine() string
}

// DialectOf is t's SQL dialect; ok is false for a target that does not
// speak SQL.
func DialectOf(t Target) (d dialect.Dialect, ok bool) {
	if st, isSQL := t.(SQLTarget); isSQL {
		return st.Dialect(), true
	}
	return dialect.Dialect{}, false
}

// Kind is what a result calls a target: its SQL flavor and engine, or
// its protocol and engine.
func Kind(t Target) (flavor, engine string) {
	if d, ok := DialectOf(t); ok {
		return string(d.Flavor), d.Engine
	}
	if nt, ok := t.(NativeTarget); ok {
		return string(t.Protocol()), nt.Engine()
	}
	return string(t.Protocol()), ""
}

// StartOptions are what a cell asks of a server.
type StartOptions struct {
	WorkDir string // the target makes its own directory under it
	// MemoryBudget in bytes is shared out to the engine's caches and
	// buffers by one rule per engine (SizeMemory) so engines are compared
	// with the same memory and every phase fits it.
	MemoryBudget int64
	// Clients is how many connections the run will hold at once, which the
	// memory rule sizes the per-connection buffers for.
	Clients  int
	Settings map[string]string // per-target server settings from the plan
	Log      io.Writer         // progress notes for the user; nil for none
	// KeepData leaves the server's directory behind after Stop.
	KeepData bool
	// Wrap, when set, rewrites the server's command before it starts (to
	// start it inside its cgroups).
	Wrap func(*exec.Cmd) error
	// WrapNode, when set, starts one of a cluster's nodes (named node)
	// inside cgroups of its own that hold the limits one server gets, as
	// on a machine of its own; a Clusters target uses it, Wrap otherwise.
	// MemoryBudget is then every node's budget together.
	WrapNode func(node string, cmd *exec.Cmd) error
	// Link is the cell's link between a cluster's nodes (--link,
	// DELAY[,RATE]); "" for none.
	Link string
	// AddNet records a network a cluster target is about to make (its
	// internal/netns id) in the ledger, so the sweep after a SIGKILL
	// removes it; ForgetNet drops it once removed. Nil: nothing records.
	AddNet, ForgetNet func(id string)
}

// makeServerDir creates the one directory a managed server owns. Stop
// removes exactly this directory and nothing else, so an empty or relative
// work dir is refused rather than guessed at.
func makeServerDir(opt StartOptions, prefix string) (string, error) {
	if opt.WorkDir == "" {
		return "", fmt.Errorf("no work directory given for the %s server", prefix)
	}
	work, err := filepath.Abs(opt.WorkDir)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(work, prefix+"-")
	if err != nil {
		return "", fmt.Errorf("make server directory under %s: %w", work, err)
	}
	return dir, nil
}

// removeServerDir deletes a directory made by makeServerDir, once its
// server has exited.
func removeServerDir(dir string, keep bool) {
	if keep || dir == "" || !filepath.IsAbs(dir) {
		return
	}
	os.RemoveAll(dir)
}

// CacheShare is the fraction of the memory budget given to the engine's
// main cache (InnoDB buffer pool, RocksDB block cache, MyISAM key buffer,
// Aria page cache, PostgreSQL shared_buffers, SQLite page cache). The other
// half is left to the page cache, connections and the engine's other
// buffers, as a DBA sizing a small VM would.
const CacheShare = 0.5

// Instance is a running server, or a connection to an external one. What
// its clients speak is in SQLInstance or NativeInstance.
type Instance interface {
	// Endpoint is where clients reach it (whatever the protocol): the
	// workload's session, a client of its own (a C client), an
	// application server in the loop.
	Endpoint() proto.Endpoint
	Version(ctx context.Context) (string, error)
	// Settings are every server variable (SHOW VARIABLES, pg_settings, PRAGMAs).
	Settings(ctx context.Context) (map[string]string, error)
	// PIDs are the server processes to measure; empty when unknown
	// (external) and the shootout process itself for embedded SQLite.
	PIDs() []int
	DataDir() string
	// Settle flushes and compacts so space is measured as it will stay;
	// the note says what it could not finish in time.
	Settle(ctx context.Context) (note string, err error)
	// WriteBack writes what the engine holds dirty in memory (InnoDB's
	// dirty pages, a PostgreSQL checkpoint, MyRocks' memtables, SQLite's
	// WAL) without compacting: at the end of the measured window, so the
	// bytes counted are what the window wrote, for every engine alike.
	// An engine that can tell how much is left gives up at limit and
	// says so; the others run to the end (their caller bounds them).
	WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error)
	// Applied is what the target set from the budget and the plan.
	Applied() map[string]string
	Stop(ctx context.Context) error
}

// WriteBackResult is what a write-back did.
type WriteBackResult struct {
	// Skipped says why nothing was written back ("" when it ran).
	Skipped string
	// Left is what the engine still held dirty when the limit ran out;
	// nil when it wrote everything.
	Left *Unwritten
}

// Unwritten is what a write-back left in memory.
type Unwritten struct {
	// Bytes is -1 when the engine cannot say.
	Bytes int64
	// What is in the engine's own terms: "2624 InnoDB dirty pages".
	What string
}

// SQLInstance is an instance clients reach by SQL.
type SQLInstance interface {
	Instance
	Dialect() dialect.Dialect
	// DB is a pool on the benchmark database; callers take *sql.Conn from it.
	DB() *sql.DB
}

// NativeInstance is an instance of a native protocol.
type NativeInstance interface {
	Instance
	// DataBytes is what the server says its data takes (Redis's
	// used_memory_dataset, memcached's bytes, Tarantool's space bsize):
	// the table size of a SQL server.
	DataBytes(ctx context.Context) (int64, error)
}

// Names lists the managed targets in the order the default study uses.
func Names() []string {
	return []string{"sqlite", "mariadb-innodb", "mariadb-rocksdb", "mariadb-aria", "mariadb-aria-nontx", "mariadb-myisam", "mariadb-memory", "mariadb-galera", "mariadb-spider", "postgres", "postgres-sync",
		"redis", "memcached", "tarantool-memtx", "tarantool-vinyl"}
}

// Lookup resolves a target name or an external server URL.
func Lookup(name string) (Target, error) {
	switch {
	case name == "sqlite":
		return SQLite{}, nil
	case name == "mariadb-galera":
		return Galera{}, nil
	case name == "mariadb-spider":
		return Spider{}, nil
	case name == "postgres":
		return Postgres{}, nil
	case name == "postgres-sync":
		return PgSync{}, nil
	case name == "redis":
		return Redis{}, nil
	case name == "memcached":
		return Memcached{}, nil
	case name == "tarantool" || name == "tarantool-memtx":
		return Tarantool{Storage: "memtx"}, nil
	case name == "tarantool-vinyl":
		return Tarantool{Storage: "vinyl"}, nil
	case strings.HasPrefix(name, "mariadb-") && strings.Contains(name, "@"):
		// another build of the server: mariadb-innodb@/opt/mariadb-11.4.5
		base, dir, _ := strings.Cut(name, "@")
		t, err := Lookup(base)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("target %s: the build's directory must be an absolute path, such as %s@/opt/mariadb-11.4.5", name, base)
		}
		m := t.(MariaDB)
		m.Basedir = filepath.Clean(dir)
		// a build that is not there is the target's Available error: a
		// study lists one and runs without it where it is missing
		return m, nil
	case name == "mariadb-aria-nontx":
		return MariaDB{Engine: "aria", NonTransactional: true}, nil
	case strings.HasPrefix(name, "mariadb-"):
		engine := strings.TrimPrefix(name, "mariadb-")
		if _, ok := mariadbEngines[engine]; !ok {
			return nil, unknown(name)
		}
		return MariaDB{Engine: engine}, nil
	case strings.Contains(name, "://"):
		return ParseExternal(name)
	}
	return nil, unknown(name)
}

func unknown(name string) error {
	return fmt.Errorf("unknown target %q (valid: %s, a MariaDB target on another build such as mariadb-innodb@/opt/mariadb-11.4.5, or a server URL such as mysql://user:pass@127.0.0.1:3306/db?engine=innodb, postgres://user:pass@127.0.0.1:5432/db, redis://:pass@127.0.0.1:6379, tarantool://user:pass@127.0.0.1:3301 or memcached://127.0.0.1:11211)",
		name, strings.Join(Names(), ", "))
}

func password() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// freePort is FreeLoopbackPort; a variable, so a test can hand out one
// that is taken.
var freePort = FreeLoopbackPort

// FreeLoopbackPort asks the kernel for a free loopback port. It is free
// when asked; whoever binds it next must retry on "address already in
// use", as the servers here do.
func FreeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// tail returns the last lines of a server's log, to explain a failed start.
func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return tailString(string(b), lines)
}

func querySettings(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v.String
	}
	return out, rows.Err()
}

// HumanBytes formats a byte count the way server settings want it.
func HumanBytes(n int64) string { return units.FormatBytes(n) }

// Package lostanswer is a SQLite driver for tests whose chosen statements
// come back as a lost connection, having taken effect or not: what a
// client sees when its MariaDB session is killed, or the server crashes,
// between a statement and its answer. Workloads must then count the
// statement as in doubt, neither committed nor rolled back. It can also
// fail chosen statements with a given error (Fail), as a deadlock does.
package lostanswer

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// DriverName is the name the driver is registered under.
const DriverName = "sqlite3-lost-answer"

var (
	mu         sync.Mutex
	prefix     string
	passFirst  int
	tookEffect bool

	failPrefix string
	failTimes  int
	failErr    error
)

// Set makes the statements that start with p (case-insensitive) come back
// as lost connections after the first pass of them have run normally;
// each takes effect first when took is true (a COMMIT that does not is
// rolled back instead). An empty p lets every statement through.
func Set(p string, pass int, took bool) {
	mu.Lock()
	defer mu.Unlock()
	prefix, passFirst, tookEffect = strings.ToUpper(p), pass, took
}

// Fail makes the next times statements that start with p
// (case-insensitive) fail with err without running: a deadlock or a busy
// lock that rolls a transaction back for the client to run it again.
// Fail("", 0, nil) ends it.
func Fail(p string, times int, err error) {
	mu.Lock()
	defer mu.Unlock()
	failPrefix, failTimes, failErr = strings.ToUpper(p), times, err
}

// failing is the error query is to fail with, nil to run it.
func failing(query string) error {
	mu.Lock()
	defer mu.Unlock()
	if failTimes <= 0 || !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), failPrefix) {
		return nil
	}
	failTimes--
	return failErr
}

// lose says whether query is to come back lost, and whether it runs first.
func lose(query string) (lost, run bool) {
	mu.Lock()
	defer mu.Unlock()
	if prefix == "" || !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), prefix) {
		return false, true
	}
	if passFirst > 0 {
		passFirst--
		return false, true
	}
	return true, tookEffect
}

type conn struct{ *sqlite3.SQLiteConn }

func (c conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := failing(query); err != nil {
		return nil, err
	}
	lost, run := lose(query)
	if !lost {
		return c.SQLiteConn.ExecContext(ctx, query, args)
	}
	switch {
	case run:
		if _, err := c.SQLiteConn.ExecContext(ctx, query, args); err != nil {
			return nil, err
		}
	case strings.EqualFold(strings.TrimSpace(query), "COMMIT"):
		if _, err := c.SQLiteConn.ExecContext(ctx, "ROLLBACK", nil); err != nil {
			return nil, err
		}
	}
	return nil, io.ErrUnexpectedEOF
}

func (c conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.SQLiteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return stmt{SQLiteStmt: st.(*sqlite3.SQLiteStmt), query: query}, nil
}

type stmt struct {
	*sqlite3.SQLiteStmt
	query string
}

func (s stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := failing(s.query); err != nil {
		return nil, err
	}
	lost, run := lose(s.query)
	if !lost {
		return s.SQLiteStmt.ExecContext(ctx, args)
	}
	if run {
		if _, err := s.SQLiteStmt.ExecContext(ctx, args); err != nil {
			return nil, err
		}
	}
	return nil, io.ErrUnexpectedEOF
}

type sqliteDriver struct{ sqlite3.SQLiteDriver }

func (d *sqliteDriver) Open(dsn string) (driver.Conn, error) {
	c, err := d.SQLiteDriver.Open(dsn)
	if err != nil {
		return nil, err
	}
	return conn{c.(*sqlite3.SQLiteConn)}, nil
}

func init() { sql.Register(DriverName, &sqliteDriver{}) }

// Loaded opens the SQLite file at path (WAL, a 5 s busy timeout) and
// loads w's dataset ds into it as a cell would: schema, rows, PostLoad.
// The lost-answer driver can then open the same file.
func Loaded(t testing.TB, w workload.SQL, path string, ds workload.Dataset) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	d := dialect.Dialect{Flavor: dialect.SQLite}
	ctx := context.Background()
	for _, q := range w.Schema(d, ds) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := w.Load(ctx, db, d, ds, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range w.PostLoad(d, ds) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

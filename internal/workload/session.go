package workload

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// Session is a workload on one server, whatever the protocol: all a cell
// asks of the workload once the server runs. A SQL workload's is a
// SQLSession, a native protocol's comes from NativeWorkload.Native, and an
// application in the loop wraps its database's (internal/app).
type Session interface {
	// Load fills the server with ds, or finds it there already, loaded by
	// shootout (LoadStats.Reused: nothing was written).
	Load(ctx context.Context, ds Dataset, progress Progress) (LoadStats, error)
	// Before records the state that Check compares against (and warms
	// the server, where the workload does).
	Before(ctx context.Context, ds Dataset) (State, error)
	// NewWorker is one client with a connection of its own.
	NewWorker(ctx context.Context, ds Dataset, client int) (Worker, error)
	// Check verifies the invariants after a run given the committed
	// counters.
	Check(ctx context.Context, ds Dataset, before State, counters map[string]int64) Invariants
	// Close closes what the session holds (not the instance's pool).
	Close() error
}

// Finisher is a session whose load ends with steps that report no
// progress (secondary indexes built after the rows, as sysbench does; an
// application server started on its loaded database): the runner bounds
// them as one step after a Load that wrote rows. inFlight is told what
// each step is as it starts, so a server that left one unanswered can be
// named.
type Finisher interface {
	FinishLoad(ctx context.Context, ds Dataset, inFlight func(what string)) error
}

// SQLServer is a session on a SQL server: its pool and dialect, for the
// evidence only SQL gives (the engine's write counters, what the sessions
// of a server that stopped answering wait on, the bytes of its tables).
type SQLServer interface {
	DB() *sql.DB
	Dialect() dialect.Dialect
}

// Open is w's session on the server at ep: on SQL through db, the
// instance's pool; on any other protocol through the workload's own
// client.
func Open(w Workload, ep proto.Endpoint, db *sql.DB) (Session, error) {
	if ep.Protocol == proto.SQL {
		sw, ok := w.(SQL)
		if !ok || db == nil {
			return nil, fmt.Errorf("workload %s does not speak SQL", w.Name())
		}
		return NewSQLSession(sw, ep, db), nil
	}
	nw, ok := w.(NativeWorkload)
	if !ok {
		return nil, fmt.Errorf("workload %s speaks SQL only, not %s", w.Name(), ep.Protocol)
	}
	return nw.Native(ep)
}

// SQLSession is a SQL workload's session: on a server shootout did not
// start it claims the tables first (ClaimExternal), then creates the
// schema, loads the rows and, as the load's last step, builds what
// PostLoad says.
type SQLSession struct {
	w     SQL
	ep    proto.Endpoint
	db    *sql.DB
	d     dialect.Dialect
	claim *Claim
	ddl   SchemaExecer
}

// SchemaExecer is a server that runs a workload's schema statements (the
// tables before the load, the indexes after it) its own way: a head over
// shards makes each CREATE TABLE a table on every shard and one of its
// own that routes to them. rows is the dataset's, for shards that split
// the key into ranges. The workload's statements are the same as on one
// server: the server, not the workload, knows it is several.
type SchemaExecer interface {
	ExecSchema(ctx context.Context, stmt string, rows int64) error
}

// SchemaBy has x run the session's schema statements instead of its pool.
func (s *SQLSession) SchemaBy(x SchemaExecer) { s.ddl = x }

// execSchema runs the schema's statements through the pool, or x.
func (s *SQLSession) execSchema(ctx context.Context, stmts []string, ds Dataset, inFlight func(string)) error {
	if s.ddl == nil {
		return ExecEach(ctx, s.db, stmts, inFlight)
	}
	for _, q := range stmts {
		if inFlight != nil {
			inFlight(FirstLine(q))
		}
		if err := s.ddl.ExecSchema(ctx, q, ds.Rows); err != nil {
			return fmt.Errorf("%s: %w", FirstLine(q), err)
		}
	}
	return nil
}

// NewSQLSession is w on the server at ep, through its pool db.
func NewSQLSession(w SQL, ep proto.Endpoint, db *sql.DB) *SQLSession {
	return &SQLSession{w: w, ep: ep, db: db, d: ep.Dialect}
}

func (s *SQLSession) DB() *sql.DB              { return s.db }
func (s *SQLSession) Dialect() dialect.Dialect { return s.d }

// Endpoint is the server's, for a program that connects by itself (an
// application server in the loop).
func (s *SQLSession) Endpoint() proto.Endpoint { return s.ep }

// Workload is the SQL workload the session runs.
func (s *SQLSession) Workload() SQL { return s.w }

// Load claims (on an external server), creates the schema and loads the
// rows; FinishLoad builds the rest.
func (s *SQLSession) Load(ctx context.Context, ds Dataset, progress Progress) (LoadStats, error) {
	if s.ep.External {
		// a server shootout did not start may hold someone's data: only
		// tables shootout created there are ever written
		c, err := ClaimExternal(ctx, s.db, s.d, s.w, ds)
		if err != nil {
			return LoadStats{}, err
		}
		if c.Reuse {
			return LoadStats{Reused: true}, nil
		}
		if err := c.Begin(ctx); err != nil {
			return LoadStats{}, err
		}
		s.claim = c
	}
	var notes []string
	if sc, ok := s.w.(SchemaChecker); ok {
		var err error
		if notes, err = sc.CheckSchema(s.d, ds); err != nil {
			return LoadStats{}, fmt.Errorf("schema: %w", err)
		}
	}
	schema := s.w.Schema(s.d, ds)
	if err := s.execSchema(ctx, schema, ds, nil); err != nil {
		return LoadStats{}, fmt.Errorf("create schema: %w", err)
	}
	stats, err := s.w.Load(ctx, s.db, s.d, ds, progress)
	if err != nil {
		return stats, err
	}
	stats.Notes, stats.SchemaDDL = notes, len(schema)
	return stats, nil
}

// FinishLoad runs PostLoad's statements, then marks an external
// server's tables as holding the dataset.
func (s *SQLSession) FinishLoad(ctx context.Context, ds Dataset, inFlight func(string)) error {
	if err := s.execSchema(ctx, s.w.PostLoad(s.d, ds), ds, inFlight); err != nil {
		return err
	}
	if s.claim != nil {
		return s.claim.Done(ctx)
	}
	return nil
}

func (s *SQLSession) Before(ctx context.Context, ds Dataset) (State, error) {
	return s.w.Before(ctx, s.db, s.d, ds)
}

// NewWorker is a client on a connection of the pool, or one that
// connects by itself (OwnClients) to the endpoint.
func (s *SQLSession) NewWorker(ctx context.Context, ds Dataset, client int) (Worker, error) {
	if oc, ok := s.w.(OwnClients); ok && oc.OwnClients() {
		return oc.NewOwnWorker(ctx, s.ep, ds, client)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	wk, err := s.w.NewWorker(ctx, conn, s.d, ds, client)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return wk, nil
}

func (s *SQLSession) Check(ctx context.Context, ds Dataset, before State, counters map[string]int64) Invariants {
	return s.w.Check(ctx, s.db, s.d, ds, before, counters)
}

// Close leaves the pool to its instance.
func (s *SQLSession) Close() error { return nil }

// ExecAll runs stmts in order; an error names the statement's first line.
func ExecAll(ctx context.Context, db *sql.DB, stmts []string) error {
	return ExecEach(ctx, db, stmts, nil)
}

// ExecEach is ExecAll telling inFlight (when not nil) each statement's
// first line as it starts.
func ExecEach(ctx context.Context, db *sql.DB, stmts []string, inFlight func(string)) error {
	for _, q := range stmts {
		if inFlight != nil {
			inFlight(FirstLine(q))
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", FirstLine(q), err)
		}
	}
	return nil
}

// FirstLine is a statement's first line, for messages.
func FirstLine(q string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(q), "\n")
	return l
}

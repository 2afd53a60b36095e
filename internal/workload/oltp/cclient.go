package oltp

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"shootout/internal/cloop"
	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// clientC is the client param's value for a loop in C per client.
const clientC = "libmariadb"

// SetServer is where client=libmariadb's clients connect.
func (w *Workload) SetServer(s workload.Server, ok bool) {
	w.mu.Lock()
	w.server, w.serverKnown = s, ok
	w.mu.Unlock()
}

// SpeaksDialect refuses client=libmariadb on a server that is not
// MariaDB's (or MySQL's), before anything starts.
func (w *Workload) SpeaksDialect(d dialect.Dialect) error {
	if w.opt.Client == clientC && d.Flavor != dialect.MySQL {
		return fmt.Errorf("workload %s: parameter client=%s speaks to MariaDB and MySQL only, not %s; use client=go", w.test.name, clientC, d.Flavor)
	}
	return nil
}

// cworker is one client of client=libmariadb: its point selects run in
// a loop of C (package cloop) on a connection of its own; Go draws the
// ids, as the Go client does, and hands them over.
type cworker struct {
	w      *Workload
	conn   *cloop.Conn
	rng    *rand.Rand
	ids    idGen
	tables int
	per    int
	rec    workload.LoopRecorder
	// Do's outcome, from the loop's Finished
	did bool
}

func (w *Workload) newCWorker(conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	// the pool's connection is not what this client talks on
	conn.Close()
	if err := w.SpeaksDialect(d); err != nil {
		return nil, err
	}
	w.mu.Lock()
	s, ok := w.server, w.serverKnown
	w.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("parameter client=%s needs the server's address (a server shootout started, or a mysql:// URL); use client=go", clientC)
	}
	var queries []string
	for i := 1; i <= w.opt.Tables; i++ {
		queries = append(queries, "SELECT c FROM "+table(i)+" WHERE id=?")
	}
	c, err := cloop.Open(cloop.Options{Server: s, Queries: queries, Check: cloop.AnyRow, PerEvent: w.opt.PointSelects})
	if err != nil {
		return nil, fmt.Errorf("libmariadb client: %w", err)
	}
	seed := uint64(time.Now().UnixNano()) ^ uint64(client)<<32
	rng := rand.New(rand.NewPCG(seed, uint64(ds.Seed)))
	return &cworker{w: w, conn: c, rng: rng, ids: newIDGen(w.opt.RandType, ds.Rows, rng), tables: w.opt.Tables, per: w.opt.PointSelects}, nil
}

// Next draws an event's reads as the Go client does: one table, an id
// of the test's distribution for each point select.
func (c *cworker) Next(event []cloop.Read) {
	t := 0
	if c.tables > 1 {
		t = c.rng.IntN(c.tables)
	}
	for i := range event {
		event[i] = cloop.Read{Stmt: t, ID: c.ids.next()}
	}
}

func (c *cworker) Finished(event []cloop.Read, took time.Duration) {
	c.did = true
	if c.rec != nil {
		c.rec.Finished(workload.Outcome{Reads: int32(len(event))}, took)
	}
}

func (c *cworker) InFlight(since int64) {
	if c.rec != nil {
		c.rec.InFlight(since)
	}
}

func (c *cworker) Loop(ctx context.Context, until time.Time, rec workload.LoopRecorder) (workload.Outcome, error) {
	c.rec = rec
	defer func() { c.rec = nil }()
	return workload.Outcome{}, c.conn.Run(ctx, until, c)
}

func (c *cworker) Do(ctx context.Context) (workload.Outcome, error) {
	c.did = false
	if err := c.conn.Once(c); err != nil {
		return workload.Outcome{}, err
	}
	if !c.did {
		return workload.Outcome{}, errors.New("libmariadb client: an event finished without its reads")
	}
	return workload.Outcome{Reads: int32(c.per)}, nil
}

// Restart is the Go client's error policy.
func (c *cworker) Restart(err error) (again, unlimited bool) {
	return (&worker{w: c.w}).Restart(err)
}

func (c *cworker) Abort(context.Context) {}

func (c *cworker) Counters() map[string]int64 { return map[string]int64{} }

func (c *cworker) Close() error {
	c.conn.Close()
	return nil
}

package oltp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"shootout/internal/cloop"
	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/workload"
)

const clientC = cloop.ClientParam

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
	*cloop.Worker
	w      *Workload
	rng    *rand.Rand
	ids    idGen
	tables int
}

// OwnClients: client=libmariadb's clients connect by themselves.
func (w *Workload) OwnClients() bool { return w.opt.Client == clientC }

// NewOwnWorker is one client of client=libmariadb on the server at s.
func (w *Workload) NewOwnWorker(ctx context.Context, s proto.Endpoint, ds workload.Dataset, client int) (workload.Worker, error) {
	if err := w.SpeaksDialect(s.Dialect); err != nil {
		return nil, err
	}
	if !s.Known() {
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
	cw := &cworker{w: w, rng: rng, ids: newIDGen(w.opt.RandType, ds.Rows, rng), tables: w.opt.Tables}
	cw.Worker = cloop.NewWorker(c, cw)
	return cw, nil
}

// Next draws an event's reads as the Go client does: one table, an id
// of the test's distribution for each point select.
func (c *cworker) Next(event []cloop.Read) bool {
	t := 0
	if c.tables > 1 {
		t = c.rng.IntN(c.tables)
	}
	for i := range event {
		event[i] = cloop.Read{Stmt: t, ID: c.ids.next()}
	}
	return true
}

// Done: sysbench's point select reads its row and checks nothing.
func (c *cworker) Done(event []cloop.Read) workload.Outcome {
	return workload.Outcome{Reads: int32(len(event))}
}

// Restart is the Go client's error policy.
func (c *cworker) Restart(err error) (again, unlimited bool) {
	return (&worker{w: c.w}).Restart(err)
}

func (c *cworker) Counters() map[string]int64 { return map[string]int64{} }

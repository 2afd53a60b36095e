package kv

import (
	"context"
	"fmt"

	"shootout/internal/cloop"
	"shootout/internal/proto"
	"shootout/internal/workload"
)

const clientC = cloop.ClientParam

// cworker is one client of client=libmariadb: its slice of the ids read
// by prepared point select in a loop of C, each row checked in Go as the
// loop hands it back.
type cworker struct {
	*cloop.Worker
	w     *Workload
	slice []int64
	next  int
	total int
	rows  int64
}

// OwnClients: client=libmariadb's clients connect by themselves.
func (w *Workload) OwnClients() bool { return w.opt.Client == clientC }

// NewOwnWorker is one client of client=libmariadb on the server at s.
func (w *Workload) NewOwnWorker(ctx context.Context, s proto.Endpoint, ds workload.Dataset, client int) (workload.Worker, error) {
	if !s.Known() {
		return nil, fmt.Errorf("kv client=%s needs the server's address (a server shootout started, or a mysql:// URL); use client=go", clientC)
	}
	c, err := cloop.Open(cloop.Options{Server: s, Queries: []string{"SELECT value1, value2 FROM keyvalue WHERE id = ?"}, Check: cloop.Values, PerEvent: 1})
	if err != nil {
		return nil, fmt.Errorf("libmariadb client: %w", err)
	}
	slice, total := w.sliceOf(ds, client)
	cw := &cworker{w: w, slice: slice, total: total}
	cw.Worker = cloop.NewWorker(c, cw)
	return cw, nil
}

// Next is the slice's next id, round after round, with the row loaded
// for it.
func (c *cworker) Next(event []cloop.Read) bool {
	if c.next >= c.total || len(c.slice) == 0 {
		return false
	}
	id := c.slice[c.next%len(c.slice)]
	c.next++
	event[0] = cloop.Read{ID: id, Want1: value1(id), Want2: value2(id)}
	return true
}

// Done counts a row read right, and records one that was not.
func (c *cworker) Done(event []cloop.Read) workload.Outcome {
	r := event[0]
	switch r.Status {
	case cloop.OK:
		c.rows++
	case cloop.NoRow:
		c.w.miss(fmt.Sprintf("id %d: no row", r.ID))
	case cloop.ManyRows:
		c.w.miss(fmt.Sprintf("id %d: more than one row", r.ID))
	default:
		c.w.miss(fmt.Sprintf("id %d: (%d, %g), loaded (%d, %g)", r.ID, r.Got1, r.Got2, r.Want1, r.Want2))
	}
	return workload.Outcome{Reads: 1}
}

func (c *cworker) Counters() map[string]int64 { return map[string]int64{"rows_read": c.rows} }

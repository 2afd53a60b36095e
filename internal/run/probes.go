package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// A probe watches the measured window: it starts before the clients run
// and stops after them. The window starts its probes in the order of
// window.probes and stops them in reverse, so each one's reading spans
// those started after it; what they read is put in the cell's file by
// window.record once every probe has stopped. A probe that does not apply
// to the cell does nothing.
type probe interface {
	start(w *window) error
	stop(w *window)
}

// stateProbe is the workload's state before the window, which the checks
// compare the state after it with.
type stateProbe struct{ state workload.State }

func (p *stateProbe) start(w *window) (err error) {
	p.state, err = w.c.sess.Before(w.ctx, w.c.ds)
	return err
}

func (p *stateProbe) stop(*window) {}

// engineWritesProbe reads a SQL engine's own write counters (its log and
// data pages) at both ends.
type engineWritesProbe struct {
	before, after dialect.EngineWrites
	known, read   bool
	err           error
}

func (p *engineWritesProbe) start(w *window) error {
	db, d := w.c.sqlHandles()
	if db == nil {
		return nil
	}
	var err error
	if p.before, p.known, err = d.ReadEngineWrites(w.ctx, db); err != nil {
		w.c.f.Server.Note = "engine write counters unreadable: " + err.Error()
	}
	return nil
}

// stop reads the counters again once every other probe has stopped:
// PostgreSQL's read waits for the clients' backends to exit, which is
// when they publish their statistics.
func (p *engineWritesProbe) stop(w *window) {
	if !p.known || w.dres == nil || w.dres.Events == 0 {
		return
	}
	db, d := w.c.sqlHandles()
	p.after, p.read, p.err = d.ReadEngineWrites(w.ask, db)
}

// preConnectProbe connects every client (and warms its connection, where
// the cache is the connection's) before the window of a workload that
// reads from memory, and the probes after it: the reads are what it
// measures.
type preConnectProbe struct{ pre *preConnected }

func (p *preConnectProbe) start(w *window) error {
	if !w.readsFromMemory || (w.agents != nil && w.agents.a != nil) {
		// an agent connects its own clients
		return nil
	}
	pre, err := connectAll(w.ctx, w.c.connect, w.cfg.Clients)
	if err != nil {
		return err
	}
	p.pre, w.connect = pre, pre.handOut
	return nil
}

func (p *preConnectProbe) stop(*window) {
	if p.pre != nil {
		p.pre.closeUnused()
	}
}

// cacheProbe is the page-cache window of a workload that reads from
// memory (cache.go): the server's cached files locked, a control file,
// residency at both ends. It starts before the neighbour and the disk
// window (it writes a file, and locking may read some of the server's
// files) and so frees its control file after the disk window ended.
type cacheProbe struct{ win *cacheWindow }

func (p *cacheProbe) start(w *window) error {
	if !w.readsFromMemory {
		return nil
	}
	c := w.c
	p.win = startCacheWindow(c.inst.DataDir(), c.WorkDir, c.cell.Conditions.MemoryBytes == 0)
	if p.win != nil && p.win.pinnedBytes > 0 {
		logf(c.Log, "locked %.0f MiB of the server's cached files in the page cache for the window", float64(p.win.pinnedBytes)/(1<<20))
	}
	return nil
}

func (p *cacheProbe) stop(*window) {
	p.win.stop()
	p.win.close()
}

// note is what the window did to the page cache, for a cell it watched.
func (p *cacheProbe) note(w *window) {
	if p.win != nil {
		w.c.f.Limits.Notes = append(w.c.f.Limits.Notes, p.win.limitsNote())
	}
}

// neighbourProbe is the cell's fio neighbour, if any.
type neighbourProbe struct{ run *neighbourRun }

func (p *neighbourProbe) start(w *window) (err error) {
	p.run, err = w.c.startNeighbour(w.ctx, w.cfg.Duration)
	return err
}

func (p *neighbourProbe) stop(*window) { p.run.stop() }

func (p *neighbourProbe) evidence() map[string]string {
	if p.run == nil {
		return nil
	}
	return p.run.evidence
}

// groupProbe is the server's cgroup over the window: its evidence as
// differences, and the IOs its disk controller serviced. It starts after
// the neighbour, whose start (laying out its file) is no part of the
// window, and the neighbour's IOs in it are taken out at the rate fio
// reported.
type groupProbe struct {
	win                  *limits.Window
	from                 time.Time
	ioBefore, ioAfter    int64
	readsBefore, readsAt int64
	secs                 float64
	evidence             map[string]string
	notes                []string
}

func (p *groupProbe) start(w *window) error {
	p.readsBefore = -1
	if g := w.c.group; g != nil {
		p.from = time.Now()
		p.ioBefore, p.readsBefore = g.IOServiced(), g.IOReads()
		p.win = g.StartWindow()
	}
	return nil
}

func (p *groupProbe) stop(w *window) {
	if g := w.c.group; g != nil {
		p.evidence, p.notes = p.win.End()
		p.ioAfter, p.readsAt = g.IOServiced(), g.IOReads()
		p.secs = time.Since(p.from).Seconds()
	}
}

// readIOs is what the group's disk controller read in the window, -1
// without one.
func (p *groupProbe) readIOs() int64 {
	if p.win == nil || p.readsBefore < 0 {
		return -1
	}
	return max(p.readsAt-p.readsBefore, 0)
}

// diskProbe is the device counters of the data directory's disk, the page
// cache synced at both ends (disk.go).
type diskProbe struct{ win *diskWindow }

func (p *diskProbe) start(w *window) error {
	p.win = startDiskWindow(w.c.inst.DataDir())
	return nil
}

func (p *diskProbe) stop(*window) { p.win.stop() }

// samplerProbe samples the server's processes (/proc) over the run and
// the write-back.
type samplerProbe struct {
	sampler *metrics.Sampler
	from    time.Time
	usage   metrics.Report
	secs    float64
}

func (p *samplerProbe) start(w *window) error {
	p.from = time.Now()
	p.sampler = metrics.StartWith(w.serverInst().PIDs(), time.Second, w.c.counters())
	return nil
}

func (p *samplerProbe) stop(w *window) {
	p.usage = p.sampler.Stop()
	p.secs = time.Since(p.from).Seconds()
	// the neighbour's IOs are taken out of the group's over the run and
	// the write-back
	w.windowSecs = time.Since(w.runStart).Seconds()
}

// appProbe samples the application server in the loop, and counts the
// statements the database received.
type appProbe struct {
	sampler                         *metrics.Sampler
	usage                           metrics.Report
	questionsBefore, questionsAfter int64
}

func (p *appProbe) start(w *window) error {
	a := w.c.inLoop()
	if a == nil {
		return nil
	}
	p.sampler = metrics.Start(a.PIDs(), time.Second)
	db, d := w.c.sqlHandles()
	p.questionsBefore = questions(w.ctx, db, d)
	return nil
}

func (p *appProbe) stop(w *window) {
	if p.sampler == nil {
		return
	}
	p.usage = p.sampler.Stop()
	if w.dres != nil {
		db, d := w.c.sqlHandles()
		p.questionsAfter = questions(w.ask, db, d)
	}
}

// writeBackProbe is inside every probe but the cluster's nodes': what the
// window dirtied is written before anything is counted, for every engine
// alike, since an engine that defers its writes (InnoDB's dirty pages, PostgreSQL's shared buffers,
// MyRocks' memtables) would otherwise look as if it wrote less. After a
// stall nothing is written back, and the server's threads and sessions
// are added to the run's error.
type writeBackProbe struct {
	wb   writeBack
	err  error
	secs float64
}

func (p *writeBackProbe) start(*window) error { return nil }

func (p *writeBackProbe) stop(w *window) {
	from := time.Now()
	defer func() { p.secs = time.Since(from).Seconds() }()
	c := w.c
	db, d := c.sqlHandles()
	if errors.Is(w.runErr, driver.ErrStalled) {
		// a server that stopped answering the clients may not answer
		// these either: what is asked of it now is bounded, and nothing
		// is written back for a cell that has failed
		w.bound()
		if ev := stallEvidence(w.ask, c.inst.PIDs(), db, d); ev != "" {
			w.runErr = fmt.Errorf("%w; %s", w.runErr, ev)
		}
		// a cluster's node can die and leave the clients' server waiting
		// on it (a synchronous standby): its death is the cause
		if why := c.deathSoFar(); why != "" {
			w.runErr = fmt.Errorf("%w; a server process had died: %s", w.runErr, why)
		}
		return
	}
	limit, least := c.stepLimit(time.Duration(c.f.Load.Seconds * float64(time.Second)))
	// what a run dirtied under a disk cap is written back under it
	// too: ten times the run is allowed as well
	limit = max(limit, 10*time.Duration(w.runSecs*float64(time.Second)))
	// an engine that can say what is left gives up at the bound and the
	// cell goes on, saying so; one that cannot runs to the end, and past
	// the bound (and the time to read its answer) it is taken to have
	// stopped answering
	var got target.WriteBackResult
	late, err := boundStep(w.ask, limit+stalledServerQueries, c.inst.PIDs(), db, d, func(ctx context.Context) (err error) {
		got, err = c.inst.WriteBack(ctx, limit)
		return err
	})
	if late == nil {
		p.wb, p.err = finishedWriteBack(got, err), err
		return
	}
	// the step may still be writing its answer: it is not read; and what
	// is asked of the server from now on is bounded, as after a stall of
	// the run
	w.bound()
	p.wb = writeBack{ran: true, left: &target.Unwritten{Bytes: -1, What: "an unknown amount (the write-back had not returned)"}}
	p.err = fmt.Errorf("the server stopped answering: the write-back after the run went unanswered for %v (the bound: ten times the load or the run, at least %v); %s",
		late.waited.Round(time.Second), least, late.evidence)
}

// nodesProbe is a cluster's per-node window (nodes.go), the innermost:
// each node's counters from just before the clients run to as they stop,
// the write-back left out. Nothing for a single server.
type nodesProbe struct{}

func (nodesProbe) start(w *window) error {
	w.c.markNodes(w.ctx)
	return nil
}

func (nodesProbe) stop(w *window) { w.c.readNodes(w.ctx) }

package run

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// stalledServerQueries bounds everything asked of a server, together,
// after its clients' operations went unanswered (driver.ErrStalled).
const stalledServerQueries = 10 * time.Second

// stallEvidence is what a server that stopped answering was doing: its
// threads as the kernel sees them (waiting on storage, or among
// themselves) and its sessions by its own account, if it still answers.
// pids are the server's (none for an external server, shootout's own for
// SQLite: neither is read); db is nil for a native server.
func stallEvidence(ctx context.Context, pids []int, db *sql.DB, d dialect.Dialect) string {
	ctx, cancel := context.WithTimeout(ctx, stalledServerQueries)
	defer cancel()
	var parts []string
	if len(pids) > 0 && !(len(pids) == 1 && pids[0] == os.Getpid()) {
		parts = append(parts, "the server's "+metrics.ThreadWaits(pids))
	}
	if db != nil {
		act, err := d.Activity(ctx, db)
		switch {
		case err != nil:
			parts = append(parts, "its sessions could not be read: "+err.Error())
		case act != "":
			parts = append(parts, "its sessions: "+act)
		}
		waits, err := d.EngineWaits(ctx, db)
		switch {
		case err != nil:
			parts = append(parts, "its engine's pending IO could not be read: "+err.Error())
		case waits != "":
			parts = append(parts, waits)
		}
	}
	return strings.Join(parts, "; ")
}

// measured is what the measured window hands the checks.
type measured struct {
	driver *driver.Result
	before workload.State
}

// driverConfig is the cell's run as the driver takes it.
func (c *cellRun) driverConfig() driver.Config {
	// the plan's typed values, parsed once when it was resolved
	return driver.Config{Clients: c.cell.Clients, Duration: c.res.Duration, Ops: c.cell.Ops, Reps: c.cell.Reps, Rate: c.cell.Rate, Trim: c.res.Trim,
		Interval: c.res.Interval, MaxRetries: c.res.MaxRetries, OpNames: c.w.Ops(), Out: c.Log, StallLimit: c.stallLimit,
		InterruptGrace: c.interruptGrace, Classify: dialect.Classify}
}

func (c *cellRun) connect(ctx context.Context, client int) (workload.Worker, error) {
	return c.sess.NewWorker(ctx, c.ds, client)
}

// preConnected are clients connected before the window, handed to the
// driver as it asks for them; a reconnect gets a new connection.
type preConnected struct {
	mu      sync.Mutex
	workers []workload.Worker
	connect driver.Connect
}

func connectAll(ctx context.Context, connect driver.Connect, clients int) (*preConnected, error) {
	p := &preConnected{connect: connect}
	for i := 0; i < clients; i++ {
		w, err := connect(ctx, i)
		if err != nil {
			p.closeUnused()
			return nil, fmt.Errorf("client %d: %w", i+1, err)
		}
		p.workers = append(p.workers, w)
	}
	return p, nil
}

func (p *preConnected) handOut(ctx context.Context, client int) (workload.Worker, error) {
	p.mu.Lock()
	var w workload.Worker
	if client < len(p.workers) {
		w, p.workers[client] = p.workers[client], nil
	}
	p.mu.Unlock()
	if w != nil {
		return w, nil
	}
	return p.connect(ctx, client)
}

// closeUnused closes the clients the driver never took (it failed first).
func (p *preConnected) closeUnused() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, w := range p.workers {
		if w != nil {
			w.Close()
			p.workers[i] = nil
		}
	}
}

// measure is the measured window: the neighbour starts, the counters are
// read, the clients run, the counters are read again, the neighbour stops.
// The figures are filled in even when the run or the neighbour failed, and
// the error then fails the cell.
func (c *cellRun) measure(ctx context.Context) (*measured, error) {
	if ca, ok := c.w.(workload.ClientsAware); ok {
		ca.SetClients(c.cell.Clients)
	}
	f := c.f
	before, err := c.sess.Before(ctx, c.ds)
	if err != nil {
		return nil, err
	}
	// the SQL-only evidence: engine write counters, statements per request
	db, d := c.sqlHandles()
	var writesBefore dialect.EngineWrites
	var writesKnown bool
	if db != nil {
		writesBefore, writesKnown, err = d.ReadEngineWrites(ctx, db)
		if err != nil {
			f.Server.Note = "engine write counters unreadable: " + err.Error()
		}
	}
	cfg := c.driverConfig()
	connect := driver.Connect(c.connect)
	mr, readsFromMemory := c.w.(workload.MemoryReader)
	readsFromMemory = readsFromMemory && mr.ReadsFromMemory()
	if readsFromMemory {
		// every client connects (and warms its connection, where the
		// cache is the connection's) before the window and its
		// neighbour: the reads are what it measures
		pre, err := connectAll(ctx, c.connect, cfg.Clients)
		if err != nil {
			return nil, err
		}
		defer pre.closeUnused()
		connect = pre.handOut
	}
	// before the neighbour and the disk window: it writes a file, and
	// locking may read some of the server's
	var cache *cacheWindow
	if readsFromMemory {
		cache = startCacheWindow(c.inst.DataDir(), c.WorkDir, c.cell.Conditions.MemoryBytes == 0)
		defer cache.close()
		if cache != nil {
			defer func() { f.Limits.Notes = append(f.Limits.Notes, cache.limitsNote()) }()
			if cache.pinnedBytes > 0 {
				logf(c.Log, "locked %.0f MiB of the server's cached files in the page cache for the window", float64(cache.pinnedBytes)/(1<<20))
			}
		}
	}
	logf(c.Log, "running %s: %d clients, %s", c.cell.Workload, c.cell.Clients, describeStop(cfg))
	nb, err := c.startNeighbour(ctx, cfg.Duration)
	if err != nil {
		return nil, err
	}
	defer nb.stop()
	var ioBefore int64
	readsBefore := int64(-1)
	var win *limits.Window
	ioFrom := time.Now()
	if c.group != nil {
		ioBefore = c.group.IOServiced()
		readsBefore = c.group.IOReads()
		win = c.group.StartWindow()
	}
	disk := startDiskWindow(c.inst.DataDir())
	sampledFrom := time.Now()
	sampler := metrics.StartWith(c.inst.PIDs(), time.Second, c.counters())
	var appSampler *metrics.Sampler
	questionsBefore := int64(-1)
	if a := c.inLoop(); a != nil {
		appSampler = metrics.Start(a.PIDs(), time.Second)
		questionsBefore = questions(ctx, db, d)
	}
	c.markNodes(ctx)
	runStart := time.Now()
	if c.duringRun != nil && db != nil {
		go c.duringRun(ctx, db)
	}
	// the cell's context ends the moment the server dies (watchServer)
	dres, runErr := driver.Run(ctx, cfg, connect)
	c.readNodes(ctx)
	if a := c.inLoop(); a != nil {
		if errs := a.LogErrors(); len(errs) > 0 {
			if runErr != nil {
				runErr = fmt.Errorf("%w; %s's log: %s", runErr, a.Name(), strings.Join(errs, "; "))
			}
			c.appErrors = errs
		}
	}
	runSecs := time.Since(runStart).Seconds()
	// what the window dirtied is written before anything is counted, for
	// every engine alike: otherwise an engine that defers its writes
	// (InnoDB's dirty pages, PostgreSQL's shared buffers, MyRocks'
	// memtables) would look as if it wrote less
	wbStart := time.Now()
	var wb writeBack
	var wbErr error
	if errors.Is(runErr, driver.ErrStalled) {
		// a server that stopped answering the clients may not answer
		// these either: what is asked of it now is bounded, and nothing
		// is written back for a cell that has failed
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, stalledServerQueries)
		defer cancel()
		if ev := stallEvidence(ctx, c.inst.PIDs(), db, d); ev != "" {
			runErr = fmt.Errorf("%w; %s", runErr, ev)
		}
	} else {
		limit, least := c.stepLimit(time.Duration(c.f.Load.Seconds * float64(time.Second)))
		// what a run dirtied under a disk cap is written back under it
		// too: ten times the run is allowed as well
		limit = max(limit, 10*time.Duration(runSecs*float64(time.Second)))
		// an engine that can say what is left gives up at the bound and
		// the cell goes on, saying so; one that cannot runs to the end,
		// and past the bound (and the time to read its answer) it is
		// taken to have stopped answering
		var got target.WriteBackResult
		late, err := boundStep(ctx, limit+stalledServerQueries, c.inst.PIDs(), db, d, func(ctx context.Context) (err error) {
			got, err = c.inst.WriteBack(ctx, limit)
			return err
		})
		if late == nil {
			wb, wbErr = finishedWriteBack(got, err), err
		} else {
			// the step may still be writing its answer: it is not read;
			// and what is asked of the server from now on is bounded, as
			// after a stall of the run
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, stalledServerQueries)
			defer cancel()
			wb = writeBack{ran: true, left: &target.Unwritten{Bytes: -1, What: "an unknown amount (the write-back had not returned)"}}
			wbErr = fmt.Errorf("the server stopped answering: the write-back after the run went unanswered for %v (the bound: ten times the load or the run, at least %v); %s",
				late.waited.Round(time.Second), least, late.evidence)
		}
	}
	wbSecs := time.Since(wbStart).Seconds()
	usage := sampler.Stop()
	sampledSecs := time.Since(sampledFrom).Seconds()
	cache.stop()
	if appSampler != nil && dres != nil {
		c.fillApp(appSampler.Stop(), usage, dres.Events, dres.Counters, questionsBefore, questions(ctx, db, d))
	}
	windowSecs := time.Since(runStart).Seconds()
	disk.stop() // before the neighbour stops: its IO is taken out by rate
	nb.stop()
	if dres != nil {
		fillDriver(f, dres)
		note := f.Server.Note
		fillServer(f, usage, dres.Events, c.inst)
		f.Server.Note = joinNotes(f.Server.Note, note)
		disk.fill(&f.Server, dres.Events, nb.evidence)
		if writesKnown && dres.Events > 0 {
			c.engineWrites(ctx, db, d, writesBefore, dres.Events)
		}
		f.Server.WriteAmplification = writeAmplification(f.Server, dres.Counters)
		if readsFromMemory {
			f.Server.InMemory = c.inMemory(usage.Measured, usage.ServerReadBytes, readsBefore, cache)
			if im := f.Server.InMemory; !im.OK {
				logf(c.Log, "%s", im.Note)
			}
		}
		dres.WriteSummary(c.Log)
	}
	wb.fill(&f.Server, wbSecs)
	if g := c.group; g != nil {
		f.Limits.Applied = true
		f.Limits.Settings = g.Applied
		var notes []string
		f.Limits.Evidence, notes = win.End()
		f.Limits.Notes = append(f.Limits.Notes, notes...)
		// the group's count includes a neighbour sharing the cap: its
		// IOs, as fio reported them, are the server's no more
		serviced, reads := g.IOServiced()-ioBefore, g.IOReads()-readsBefore
		ioSecs := time.Since(ioFrom).Seconds()
		ios := serviced
		if n := neighbourIOs(nb.evidence, windowSecs); n > 0 {
			f.Limits.Evidence["neighbour.ios_in_window"] = fmt.Sprint(n)
			ios = max(ios-n, 0)
		}
		if ios > 0 && dres != nil && dres.Events > 0 {
			f.Server.IOOpsPerOp = float64(ios) / float64(dres.Events)
		}
		// what the caps left the server over the driven run and the
		// write-back, each count over the seconds it was counted in: the
		// write-back's CPU and IOs over the run's seconds alone would
		// look as if the caps had leaked
		if c.lim.Server.CPUQuota > 0 && usage.Measured {
			f.Limits.Evidence["server_cpu_cores_during_run_and_writeback"] = fmt.Sprintf("%.3f", usage.ServerCPUSeconds/sampledSecs)
		}
		if c.lim.Server.IOPS > 0 {
			f.Limits.Evidence["io_serviced_per_s_during_run_and_writeback"] = fmt.Sprintf("%.1f", float64(serviced)/ioSecs)
			if readsBefore >= 0 {
				f.Limits.Evidence["io_writes_per_s_during_run_and_writeback"] = fmt.Sprintf("%.1f", float64(serviced-reads)/ioSecs)
			}
		}
	}
	if len(nb.evidence) > 0 {
		if f.Limits.Evidence == nil {
			f.Limits.Evidence = map[string]string{}
		}
		for k, v := range nb.evidence {
			f.Limits.Evidence[k] = v
		}
	}
	if c.serverGone() && (runErr != nil || wbErr != nil) {
		return nil, fmt.Errorf("the measured run, %.1f s in", runSecs)
	}
	if runErr != nil {
		return nil, fmt.Errorf("run: %w", runErr)
	}
	if wbErr != nil {
		return nil, fmt.Errorf("write back what the window dirtied: %w", wbErr)
	}
	if nb.err != nil {
		return nil, fmt.Errorf("neighbour %s was not measured: %w", c.cell.Conditions.Neighbour, nb.err)
	}
	return &measured{driver: dres, before: before}, nil
}

// engineWrites reads the engine's own write counters again and keeps the
// difference per operation.
func (c *cellRun) engineWrites(ctx context.Context, db *sql.DB, d dialect.Dialect, before dialect.EngineWrites, events int64) {
	// PostgreSQL's read waits for the clients' backends to exit, which is
	// when they publish their statistics
	after, ok, err := d.ReadEngineWrites(ctx, db)
	if ok {
		w, n := after.Sub(before), float64(events)
		c.f.Server.EngineWrites = &result.EngineWrites{LogBytesPerOp: float64(w.LogBytes) / n, DataBytesPerOp: float64(w.DataBytes) / n,
			FullPageImagesPerOp: float64(w.FullPageImages) / n, Source: w.Source}
	} else if err != nil {
		c.f.Server.Note = joinNotes(c.f.Server.Note, "engine write counters unreadable after the run: "+err.Error())
	}
}

// neighbourRun is a fio neighbour for one window; the zero value (no
// neighbour) stops as a no-op.
type neighbourRun struct {
	stop     func()
	evidence map[string]string
	// err is set when the neighbour did not run or report: the
	// condition was then not what the cell says.
	err error
}

// startNeighbour starts the cell's fio neighbour, if any, for at most the
// run's length (a minute more, so it outlasts the window); it stops when
// the driven run does, so the checks and the settling are not slowed.
func (c *cellRun) startNeighbour(ctx context.Context, runFor time.Duration) (*neighbourRun, error) {
	n := &neighbourRun{stop: func() {}, evidence: map[string]string{}}
	spec := limits.NeighbourSpec(c.cell.Conditions.Neighbour)
	if spec == "0" || spec == "" {
		return n, nil
	}
	if runFor == 0 {
		runFor = 10 * time.Minute // an --ops cell: fio still stops by itself
	}
	group := c.group
	if c.nbGroup != nil {
		group = c.nbGroup
	}
	started := time.Now()
	nb, err := limits.StartNeighbour(ctx, spec, c.dataDir(), c.res.NeighbourFileBytes, c.diskIOPS(), runFor+time.Minute, group)
	if err != nil {
		return nil, fmt.Errorf("neighbour %s: %w", spec, err)
	}
	for _, pid := range nb.PIDs() {
		c.Ledger.AddServer(pid, nb.Dir)
	}
	logf(c.Log, "neighbour %s: fio, %d job(s) of random 4k 50/50 read/write, direct IO%s; running after %.1f s", spec, nb.Jobs, rateText(nb.Rate), time.Since(started).Seconds())
	var once sync.Once
	n.stop = func() {
		once.Do(func() {
			nr, err := nb.Stop()
			for _, pid := range nb.PIDs() {
				c.Ledger.ForgetServer(pid, nb.Dir)
			}
			n.evidence["neighbour.jobs"] = fmt.Sprint(nb.Jobs)
			if err != nil {
				n.err = err
				c.f.Limits.Notes = append(c.f.Limits.Notes, "neighbour: "+err.Error())
				return
			}
			n.evidence["neighbour.read_iops"] = fmt.Sprintf("%.1f", nr.ReadIOPS)
			n.evidence["neighbour.write_iops"] = fmt.Sprintf("%.1f", nr.WriteIOPS)
			logf(c.Log, "neighbour %s achieved %.0f read + %.0f write IOPS", spec, nr.ReadIOPS, nr.WriteIOPS)
		})
	}
	return n, nil
}

// neighbourIOs is how many IOs fio reported over a window of secs.
func neighbourIOs(evidence map[string]string, secs float64) int64 {
	r, errR := strconv.ParseFloat(evidence["neighbour.read_iops"], 64)
	w, errW := strconv.ParseFloat(evidence["neighbour.write_iops"], 64)
	if errR != nil || errW != nil {
		return 0
	}
	return int64((r + w) * secs)
}

// serverGone is true once a watched server process has exited.
func (c *cellRun) serverGone() bool {
	if c.mortal == nil {
		return false
	}
	select {
	case <-c.mortal.Exited():
		return true
	default:
		return false
	}
}

// hungFor is how long a server may stay stopped (SIGSTOP, a debugger)
// before the cell gives up on it.
const hungFor = 2 * time.Second

// diskFull says whether the filesystem of the server's data directory is
// full: a server then fails its writes (InnoDB) or waits for space forever
// (MyISAM, Aria), and either way the cell's figures are over. ext4 keeps up
// to 2% (at most 16 MiB) back for its own metadata, so writes fail with
// that much still shown free.
func (c *cellRun) diskFull() (string, bool) {
	dir := c.inst.DataDir()
	if dir == "" {
		return "", false
	}
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return "", false
	}
	size, free := int64(st.Blocks)*st.Bsize, int64(st.Bfree)*st.Bsize
	if free >= min(17<<20, size/50+1<<20) {
		return "", false
	}
	return fmt.Sprintf("the filesystem of its data directory %s is full (%s free of %s)", dir, target.HumanBytes(free), target.HumanBytes(size)), true
}

// kill ends a server shootout started that can no longer serve, saying why.
func (c *cellRun) kill(why string) {
	c.killedBecause.CompareAndSwap(nil, why)
	if pids := c.inst.PIDs(); len(pids) > 0 {
		syscall.Kill(pids[0], syscall.SIGKILL)
	}
}

// watchServer ends the cell's current step — load, run or checks — the
// moment the server exits, since its clients would otherwise retry their
// connections until they give up; it kills a server that stays stopped or
// whose disk is full, since its clients would otherwise wait on it
// forever; the cell then fails saying which.
func (c *cellRun) watchServer(ctx context.Context, stop func()) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var stoppedSince time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.mortal.Exited():
			stop()
			return
		case now := <-tick.C:
			if why, full := c.diskFull(); full {
				c.kill(why + ", so shootout killed it")
				continue
			}
			pids := c.inst.PIDs()
			if len(pids) == 0 || metrics.ProcState(pids[0]) != "T" {
				stoppedSince = time.Time{}
				continue
			}
			if stoppedSince.IsZero() {
				stoppedSince = now
				continue
			}
			if now.Sub(stoppedSince) >= hungFor {
				c.kill(fmt.Sprintf("it stayed stopped (state T: SIGSTOP or a debugger) for %s, so shootout killed it", hungFor))
				stoppedSince = time.Time{}
			}
		}
	}
}

// A window that read at most this much from storage read from memory: a
// page of a library or a log the kernel fetched is not the data.
const (
	inMemoryReadBytes = 1 << 20
	inMemoryReadIOs   = 64
)

// inMemory is the proof that the window's reads came from memory: what
// the server's processes made the kernel read from storage, and the read
// IOs of its cgroup's disk controller where it has one.
func (c *cellRun) inMemory(measured bool, readBytes, readsBefore int64, cache *cacheWindow) *result.InMemory {
	im := &result.InMemory{ReadBytes: readBytes, CgroupReadIOs: -1}
	if c.group != nil && readsBefore >= 0 {
		im.CgroupReadIOs = max(c.group.IOReads()-readsBefore, 0)
	}
	cache.fill(im)
	switch {
	case !measured:
		im.Note = "not proven in memory: the server's processes were not measured (a server shootout did not start)"
	case readBytes > inMemoryReadBytes || im.CgroupReadIOs > inMemoryReadIOs:
		im.Note = fmt.Sprintf("not in memory: the server read %.1f MiB from storage in the window", float64(readBytes)/(1<<20))
		if im.CgroupReadIOs >= 0 {
			im.Note += fmt.Sprintf(" (%d read IOs by its cgroup)", im.CgroupReadIOs)
		}
		im.Note += cache.why(c.cell.Conditions.MemoryBytes > 0)
	default:
		im.OK = true
	}
	return im
}

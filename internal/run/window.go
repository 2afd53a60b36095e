package run

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
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

// window is one measured window: the driven run between its probes, and
// what they read until record puts it in the cell's file.
type window struct {
	c   *cellRun
	ctx context.Context // the cell's: it ends the moment the server dies
	// ask is what questions to the server after the run go under: ctx,
	// bounded once the server stopped answering (a stall of the run, a
	// write-back past its bound)
	ask     context.Context
	cancels []context.CancelFunc
	cfg     driver.Config
	connect driver.Connect
	// readsFromMemory: a MemoryReader workload meant to read from memory,
	// whose window is proven in memory
	readsFromMemory bool

	dres       *driver.Result
	runErr     error
	runStart   time.Time
	runSecs    float64
	windowSecs float64

	// the probes, by name for record; probes() is their order
	state      *stateProbe
	engine     *engineWritesProbe
	preConnect *preConnectProbe
	agents     *agentsProbe
	cache      *cacheProbe
	neighbour  *neighbourProbe
	group      *groupProbe
	disk       *diskProbe
	sampler    *samplerProbe
	app        *appProbe
	writeBack  *writeBackProbe
	nodes      *nodesProbe
	started    []probe // those started, to stop
}

// probes are the window's probes in the order they start; they stop in
// reverse.
func (w *window) probes() []probe {
	return []probe{w.state, w.engine, w.agents, w.preConnect, w.cache, w.neighbour, w.group, w.disk, w.sampler, w.app, w.writeBack, w.nodes}
}

func (c *cellRun) newWindow(ctx context.Context) *window {
	w := &window{c: c, ctx: ctx, ask: ctx, cfg: c.driverConfig(), connect: c.connect}
	w.makeProbes()
	mr, ok := c.w.(workload.MemoryReader)
	w.readsFromMemory = ok && mr.ReadsFromMemory()
	return w
}

func (w *window) makeProbes() {
	w.state, w.engine, w.preConnect, w.cache = &stateProbe{}, &engineWritesProbe{}, &preConnectProbe{}, &cacheProbe{}
	w.agents = &agentsProbe{}
	w.neighbour, w.group, w.disk, w.sampler = &neighbourProbe{}, &groupProbe{}, &diskProbe{}, &samplerProbe{}
	w.app, w.writeBack, w.nodes = &appProbe{}, &writeBackProbe{}, &nodesProbe{}
}

// bound makes every question to the server from now on bounded, together.
func (w *window) bound() {
	ctx, cancel := context.WithTimeout(w.ask, stalledServerQueries)
	w.ask, w.cancels = ctx, append(w.cancels, cancel)
}

func (w *window) close() {
	for _, cancel := range w.cancels {
		cancel()
	}
}

// startProbes starts the probes in order; when one fails, those started
// stop.
func (w *window) startProbes() error { return w.startThese(w.probes()) }

func (w *window) startThese(probes []probe) error {
	for _, p := range probes {
		if err := p.start(w); err != nil {
			w.stopProbes()
			w.cache.note(w)
			return err
		}
		w.started = append(w.started, p)
	}
	return nil
}

func (w *window) stopProbes() {
	for i := len(w.started) - 1; i >= 0; i-- {
		w.started[i].stop(w)
	}
	w.started = nil
}

// run drives the clients.
func (w *window) run() {
	c := w.c
	logf(c.Log, "running %s: %d clients, %s", c.cell.Workload, c.cell.Clients, describeStop(w.cfg))
	w.runStart = time.Now()
	if db, _ := c.sqlHandles(); c.duringRun != nil && db != nil {
		go c.duringRun(w.ctx, db)
	}
	// the cell's context ends the moment the server dies (watchServer)
	w.dres, w.runErr = w.drive()
	w.runErr = c.withAppErrors(w.runErr)
	w.runSecs = time.Since(w.runStart).Seconds()
}

// measure is the measured window: the probes start, the clients run, the
// probes stop in reverse. The figures are filled in even when the run or
// a probe failed, and the error then fails the cell.
func (c *cellRun) measure(ctx context.Context) (*measured, error) {
	if ca, ok := c.w.(workload.ClientsAware); ok {
		ca.SetClients(c.cell.Clients)
	}
	w := c.newWindow(ctx)
	defer w.close()
	if err := w.startProbes(); err != nil {
		return nil, err
	}
	w.run()
	w.stopProbes()
	w.record()
	return w.outcome()
}

// record puts what the run and the probes read in the cell's file; the
// order matters where one figure is made from another (the device's bytes
// replace the process tree's, write amplification divides them) and for
// the order of the notes.
func (w *window) record() {
	c, f := w.c, w.c.f
	if dres := w.dres; dres != nil {
		if w.app.sampler != nil {
			c.fillApp(w.app.usage, w.sampler.usage, dres.Events, dres.Counters, w.app.questionsBefore, w.app.questionsAfter)
		}
		fillDriver(f, dres)
		note := f.Server.Note
		fillServer(f, w.sampler.usage, dres.Events, w.serverInst())
		f.Server.Note = joinNotes(f.Server.Note, note)
		w.recordAgents()
		w.disk.win.fill(&f.Server, dres.Events, w.neighbour.evidence())
		w.recordEngineWrites()
		f.Server.WriteAmplification = writeAmplification(f.Server, dres.Counters)
		if w.readsFromMemory {
			f.Server.InMemory = c.inMemory(w.sampler.usage.Measured, w.sampler.usage.ServerReadBytes, w.group.readIOs(), w.cache.win)
			if im := f.Server.InMemory; !im.OK {
				logf(c.Log, "%s", im.Note)
			}
		}
		dres.WriteSummary(c.Log)
	}
	w.writeBack.wb.fill(&f.Server, w.writeBack.secs)
	w.recordGroup()
	if ev := w.neighbour.evidence(); len(ev) > 0 {
		if f.Limits.Evidence == nil {
			f.Limits.Evidence = map[string]string{}
		}
		maps.Copy(f.Limits.Evidence, ev)
	}
	w.cache.note(w)
}

// recordEngineWrites keeps the difference of the engine's own write
// counters per operation.
func (w *window) recordEngineWrites() {
	p, s := w.engine, &w.c.f.Server
	if p.read {
		a, n := p.after.Sub(p.before), float64(w.dres.Events)
		s.EngineWrites = &result.EngineWrites{LogBytesPerOp: float64(a.LogBytes) / n, DataBytesPerOp: float64(a.DataBytes) / n,
			FullPageImagesPerOp: float64(a.FullPageImages) / n, Source: a.Source}
	} else if p.err != nil {
		s.Note = joinNotes(s.Note, "engine write counters unreadable after the run: "+p.err.Error())
	}
}

// recordGroup records the cgroup's evidence of the window and what its
// caps left the server.
func (w *window) recordGroup() {
	g, f, p := w.c.group, w.c.f, w.group
	if g == nil {
		return
	}
	f.Limits.Applied = true
	f.Limits.Settings = g.Applied
	f.Limits.Evidence = p.evidence
	f.Limits.Notes = append(f.Limits.Notes, p.notes...)
	// the group's count includes a neighbour sharing the cap: its IOs, as
	// fio reported them, are the server's no more
	serviced, reads := p.ioAfter-p.ioBefore, p.readsAt-p.readsBefore
	ios := serviced
	if n := neighbourIOs(w.neighbour.evidence(), w.windowSecs); n > 0 {
		f.Limits.Evidence["neighbour.ios_in_window"] = fmt.Sprint(n)
		ios = max(ios-n, 0)
	}
	if ios > 0 && w.dres != nil && w.dres.Events > 0 {
		f.Server.IOOpsPerOp = float64(ios) / float64(w.dres.Events)
	}
	// what the caps left the server over the driven run and the
	// write-back, each count over the seconds it was counted in: the
	// write-back's CPU and IOs over the run's seconds alone would look as
	// if the caps had leaked
	usage := w.sampler.usage
	if w.c.lim.Server.CPUQuota > 0 && usage.Measured {
		f.Limits.Evidence["server_cpu_cores_during_run_and_writeback"] = fmt.Sprintf("%.3f", usage.ServerCPUSeconds/w.sampler.secs)
	}
	if w.c.lim.Server.IOPS > 0 {
		f.Limits.Evidence["io_serviced_per_s_during_run_and_writeback"] = fmt.Sprintf("%.1f", float64(serviced)/p.secs)
		if p.readsBefore >= 0 {
			f.Limits.Evidence["io_writes_per_s_during_run_and_writeback"] = fmt.Sprintf("%.1f", float64(serviced-reads)/p.secs)
		}
	}
}

// outcome is the window's error, if any: the server's death first, then
// the run's, the write-back's and the neighbour's.
func (w *window) outcome() (*measured, error) {
	c, wbErr := w.c, w.writeBack.err
	if c.serverGone() && (w.runErr != nil || wbErr != nil) {
		return nil, fmt.Errorf("the measured run, %.1f s in", w.runSecs)
	}
	if w.runErr != nil {
		return nil, fmt.Errorf("run: %w", w.runErr)
	}
	if wbErr != nil {
		return nil, fmt.Errorf("write back what the window dirtied: %w", wbErr)
	}
	if nb := w.neighbour.run; nb != nil && nb.err != nil {
		return nil, fmt.Errorf("neighbour %s was not measured: %w", c.cell.Conditions.Neighbour, nb.err)
	}
	return &measured{driver: w.dres, before: w.state.state}, nil
}

// withAppErrors adds what the application in the loop logged during the
// run to the run's error.
func (c *cellRun) withAppErrors(runErr error) error {
	a := c.inLoop()
	if a == nil {
		return runErr
	}
	if errs := a.LogErrors(); len(errs) > 0 {
		if runErr != nil {
			runErr = fmt.Errorf("%w; %s's log: %s", runErr, a.Name(), strings.Join(errs, "; "))
		}
		c.appErrors = errs
	}
	return runErr
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
// IOs of its cgroup's disk controller where it has one (readIOs, else
// -1).
func (c *cellRun) inMemory(measured bool, readBytes, readIOs int64, cache *cacheWindow) *result.InMemory {
	im := &result.InMemory{ReadBytes: readBytes, CgroupReadIOs: readIOs}
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

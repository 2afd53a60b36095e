package run

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/disk"
	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// cellRun is one cell going through the pipeline of docs/design.md:
// limits, start, load, settle, measured window, checks, space. Each step
// hands the next what it made here; undo holds what must be undone when
// the cell ends, whatever step it reached.
type cellRun struct {
	*Runner
	res  *plan.Resolved
	cell result.Cell
	f    *result.File
	t    target.Target
	w    workload.Workload
	ds   workload.Dataset
	lim  Limits
	// group holds the server (and a neighbour, which shares its disk
	// cap); nbGroup holds a neighbour alone, beside an embedded database.
	group, nbGroup *limits.Group
	// nodeGroups are a cluster's nodes' groups, nested in group, by node
	nodeGroups map[string]*limits.Group
	inst       target.Instance
	// sess is the workload on inst, whatever its protocol (and an
	// application in the loop wrapping the database's)
	sess workload.Session
	// mortal is the server process shootout watches, nil for an
	// embedded or external one
	mortal target.Mortal
	// nodeSampler reads a cluster's nodes at every interval of the run
	nodeSampler *nodeSampler
	// killedBecause says why shootout killed a server it started (it
	// stayed stopped, its disk was full)
	killedBecause atomic.Value
	// disk is the modelled device the data lives on (--disk), or nil;
	// diskSpec its model, parsed once for the cell
	disk     *disk.Disk
	diskSpec *disk.Spec
	// appErrors are the exceptions an application in the loop logged
	// during the run
	appErrors []string
	undo      []func()
}

func (r *Runner) cell(ctx context.Context, res *plan.Resolved, cell result.Cell, f *result.File) (err error) {
	c := &cellRun{Runner: r, res: res, cell: cell, f: f}
	defer c.cleanup()
	defer func() {
		if err != nil {
			err = c.failed(err)
		}
	}()
	if err := c.resolve(); err != nil {
		return err
	}
	if err := c.attachDisk(); err != nil {
		return err
	}
	if err := c.applyLimits(); err != nil {
		return err
	}
	if err := c.start(ctx); err != nil {
		return err
	}
	if c.mortal != nil {
		// from here to the end of the checks, a server that dies ends the
		// step at once
		watched, stop := context.WithCancel(ctx)
		defer stop()
		go c.watchServer(watched, stop)
		ctx = watched
	}
	if err := c.load(ctx); err != nil {
		return err
	}
	if c.f.Load.Reused {
		logf(c.Log, "dataset %s already loaded on %s: reused", c.ds.Name, c.t.Name())
	}
	if err := c.settleLoad(ctx); err != nil {
		return err
	}
	m, err := c.measure(ctx)
	if err != nil {
		return err
	}
	c.liftIO()
	return c.check(ctx, m)
}

// failed completes a failed cell's record before its server stops: what the
// kernel counted so far, and, when the server died, how — the step's own
// error ("invalid connection") only says what the death looked like from
// the client's side.
func (c *cellRun) failed(err error) error {
	var oom string
	// the group's counters since it was made: a kill after the measured
	// window (in the checks) is not in the window's evidence
	var sinceStart map[string]string
	if g := c.group; g != nil {
		sinceStart = g.Evidence()
		if c.f.Limits.Evidence == nil {
			c.f.Limits.Applied, c.f.Limits.Settings = true, g.Applied
			c.f.Limits.Evidence = sinceStart
		}
	}
	for _, k := range []string{"memory.oom_kill", "memory.events.oom_kill"} {
		if n, _ := strconv.Atoi(sinceStart[k]); n > 0 {
			oom = fmt.Sprintf("the memory cgroup's OOM killer killed it (%s=%d under the %s cap)", k, n, target.HumanBytes(c.cell.Conditions.MemoryBytes))
		}
	}
	if c.mortal == nil {
		return err
	}
	if why, full := c.diskFull(); full && !c.serverGone() {
		// the watcher stops with the step that failed on the full disk;
		// a server waiting for space would only hold up its shutdown
		c.kill(why + ", so shootout killed it")
	}
	// the client sees a killed server's connections drop an instant
	// before the kernel reports its exit: give the exit a moment
	select {
	case <-c.mortal.Exited():
	case <-time.After(time.Second):
		return err
	}
	cause := c.mortal.Death()
	if why, _ := c.killedBecause.Load().(string); why != "" {
		cause = why + "; it " + cause
	}
	if oom != "" {
		cause = oom + "; it " + cause
	}
	if kept := c.keepServerLog(); kept != "" {
		cause += "; " + kept
	}
	return fmt.Errorf("%s died: %s (the cell was at: %v)", c.t.Name(), cause, err)
}

// deathSoFar is how a server process of the cell's died, "" while all
// run: a cluster's node (a standby) may have died while the one the
// clients are on runs.
func (c *cellRun) deathSoFar() string {
	if c.mortal == nil {
		return ""
	}
	return c.mortal.Death()
}

// later registers what the end of the cell must undo, in reverse order.
func (c *cellRun) later(f func()) { c.undo = append(c.undo, f) }

func (c *cellRun) cleanup() {
	for i := len(c.undo) - 1; i >= 0; i-- {
		c.undo[i]()
	}
}

// attachDisk puts the cell's data on its modelled device (--disk): the
// server's directory, its cgroup's disk caps and the neighbours' file all
// go on it. The model stays off while the data loads.
func (c *cellRun) attachDisk() error {
	if c.cell.Conditions.Disk == "" {
		return nil
	}
	spec, err := disk.Parse(c.cell.Conditions.Disk)
	if err != nil {
		return err
	}
	c.diskSpec = &spec
	if !c.t.Managed() {
		return fmt.Errorf("--disk: %s is a server shootout does not start: its data directory is not shootout's to move", c.t.Name())
	}
	// a short name: servers put their unix sockets under it (108 bytes)
	d, err := disk.Attach(spec, "cell", true)
	if err != nil {
		return fmt.Errorf("--disk %s: %w", spec, err)
	}
	c.Ledger.AddDisk(d.Dir)
	c.disk = d
	c.f.Limits.Notes = append(c.f.Limits.Notes, fmt.Sprintf("data on a modelled %s disk (%s, %s on %s); the model answers early by the mechanism's own round trip, by the CPUs' idle time before it: %s",
		spec.Model, spec, d.Loop, d.Mount, d.OverheadLine()))
	c.later(func() {
		if c.f.Limits.Evidence == nil {
			c.f.Limits.Evidence = map[string]string{}
		}
		for k, v := range d.Evidence() {
			c.f.Limits.Evidence[k] = v
		}
		if share := d.LateShare(); share > disk.Tolerance {
			c.f.Limits.Notes = append(c.f.Limits.Notes, fmt.Sprintf("the disk model answered %.0f%% of commands late: this machine could not keep the %s model's times, so the figures are those of a slower disk (shootout calibrate --disk %s)", share*100, spec.Model, spec))
		}
		if share := d.EarlyShare(); share > disk.Tolerance {
			c.f.Limits.Notes = append(c.f.Limits.Notes, fmt.Sprintf("the disk model's answers reached their clients before the model's time for %.0f%% of commands: the round trip it takes off after idle CPUs is longer than busy CPUs take, so the figures are those of a faster disk than %s", share*100, spec))
		}
		if err := d.Close(); err != nil {
			logf(c.Log, "--disk: %v (the next command's sweep retries)", err)
			return
		}
		c.Ledger.ForgetDisk(d.Dir)
	})
	return nil
}

// DiskIOPS is the IOPS of a cell's disk, of which the neighbour "25%"
// takes a quarter: the cap when there is one, else the model's. A
// running cell asks its own (diskIOPS), its model parsed once.
func DiskIOPS(c result.Conditions) int {
	if c.IOPS > 0 || c.Disk == "" {
		return c.IOPS
	}
	spec, err := disk.Parse(c.Disk)
	if err != nil {
		return 0
	}
	return iopsOf(c.IOPS, &spec)
}

// diskIOPS is DiskIOPS of the running cell, from the model attachDisk
// parsed.
func (c *cellRun) diskIOPS() int { return iopsOf(c.cell.Conditions.IOPS, c.diskSpec) }

func iopsOf(capIOPS int, model *disk.Spec) int {
	if capIOPS > 0 || model == nil {
		return capIOPS
	}
	return model.RandomIOPS()
}

// dataDir is where the server's directory and the neighbours' file go:
// the modelled disk when there is one.
func (c *cellRun) dataDir() string {
	if c.disk != nil {
		return c.disk.Mount
	}
	return c.WorkDir
}

// resolve finds the target, the workload and its dataset.
func (c *cellRun) resolve() error {
	// the cell holds the masked name; the resolved target keeps the DSN
	t := c.res.Target(c.cell.Target)
	if t == nil {
		return fmt.Errorf("target %s is not in the plan", c.cell.Target)
	}
	c.t = TargetOf(t)
	var err error
	if c.w, err = c.res.Workload(c.cell); err != nil {
		return err
	}
	c.ds, err = c.w.Dataset(c.cell.Dataset, c.res.Seed)
	return err
}

// applyLimits makes the cell's cgroups (CellLimits says which) and pins
// shootout to its CPUs.
func (c *cellRun) applyLimits() error {
	lim, err := CellLimits(c.t, c.cell)
	if err != nil {
		return err
	}
	c.lim = lim
	c.f.Limits.Notes = append(c.f.Limits.Notes, lim.Notes...)
	if lim.Unavailable != nil {
		if !c.AllowUnlimited {
			return lim.Unavailable
		}
		c.f.Limits.Notes = append(c.f.Limits.Notes, "limits not applied: "+lim.Unavailable.Error())
		c.lim = Limits{}
		return nil
	}
	if !lim.Server.Empty() {
		if c.group, err = c.makeGroup(shortID(c.cell.ID), lim.Server); err != nil {
			return err
		}
	}
	if !lim.Neighbour.Empty() {
		if c.nbGroup, err = c.makeGroup(shortID(c.cell.ID)+"-nb", lim.Neighbour); err != nil {
			return err
		}
	}
	if lim.CPUs.Client != "" && c.group != nil {
		pin, err := limits.PinSelf(shortID(c.cell.ID)+"-client", lim.CPUs.Client)
		if err != nil {
			return err
		}
		c.Ledger.AddCgroups(pin.Dirs())
		c.later(func() {
			if err := pin.Unpin(); err != nil {
				logf(c.Log, "%v", err)
				return // never remove a cgroup shootout may still be in
			}
			c.Ledger.ForgetCgroups(pin.Dirs())
		})
	}
	return nil
}

func (c *cellRun) makeGroup(name string, req limits.Request) (*limits.Group, error) {
	g, err := limits.Create(name, req, c.dataDir())
	if err != nil {
		return nil, err
	}
	c.Ledger.AddCgroups(g.Dirs())
	// the settings and evidence are named after the version's files
	c.f.Limits.Cgroup = fmt.Sprintf("v%d", limits.Version())
	c.later(func() {
		if err := g.Remove(); err != nil {
			logf(c.Log, "%v", err)
		}
		c.Ledger.ForgetCgroups(g.Dirs())
	})
	return g, nil
}

// start starts the server inside its group, opens the workload's
// session on it and records what runs.
func (c *cellRun) start(ctx context.Context) error {
	opts, err := c.startOptions()
	if err != nil {
		return err
	}
	inst, err := c.t.Start(ctx, opts)
	if err != nil {
		return fmt.Errorf("start %s: %w", c.t.Name(), err)
	}
	c.inst = inst
	c.mortal, _ = inst.(target.Mortal)
	c.track(inst)
	if err := c.open(); err != nil {
		return err
	}
	c.f.Target.Applied = inst.Applied()
	if c.f.Target.Version, err = inst.Version(ctx); err != nil {
		return fmt.Errorf("read server version: %w", err)
	}
	if c.f.Target.Settings, err = inst.Settings(ctx); err != nil {
		return fmt.Errorf("read server settings: %w", err)
	}
	return nil
}

// startOptions are what the cell asks of its server: the memory left
// after what an application in the loop takes, the plan's settings, the
// cell's allocator, its cgroups.
func (c *cellRun) startOptions() (target.StartOptions, error) {
	budget := c.cell.Conditions.MemoryBytes
	if budget == 0 {
		budget = metrics.MemAvailable()
		c.f.Limits.Notes = append(c.f.Limits.Notes, fmt.Sprintf("no --memory: caches sized from the %s of available memory", target.HumanBytes(budget)))
	}
	budget, kept, err := serverBudget(c.cell, budget)
	if err != nil {
		return target.StartOptions{}, fmt.Errorf("memory: %w", err)
	}
	if kept != "" {
		c.f.Limits.Notes = append(c.f.Limits.Notes, "memory cap: "+kept)
	}
	flavor, engine := target.Kind(c.t)
	c.f.Target = result.Target{Name: c.t.Name(), Flavor: flavor, Engine: engine, Embedded: c.t.Embedded()}
	settings := c.cell.Conditions.Settings // with the values of its settings axes
	if sizing, ok, err := target.SizeFor(c.t, budget, c.cell.Clients); ok && err == nil {
		// as the server runs it: the parts the study's settings give at
		// their given size, and for a cluster the share of each node
		line := sizing.WithGiven(settings).String()
		if c.lim.Nodes > 1 {
			line = fmt.Sprintf("each of %d nodes: %s", c.lim.Nodes, line)
		}
		c.f.Limits.Notes = append(c.f.Limits.Notes, line)
	}
	if a := c.cell.Conditions.Allocator; a != "" {
		// the allocator axis: a setting of the target's, for this cell
		settings = maps.Clone(settings)
		if settings == nil {
			settings = map[string]string{}
		}
		settings[target.MallocSetting] = a
	}
	opts := target.StartOptions{WorkDir: c.dataDir(), MemoryBudget: budget, Clients: c.cell.Clients,
		Settings: settings, Log: c.Log, KeepData: c.KeepData, Link: c.cell.Conditions.Link, AddNet: c.Ledger.AddNet, ForgetNet: c.Ledger.ForgetNet}
	if c.group != nil {
		opts.Wrap = c.group.Wrap
		if c.lim.Nodes > 1 {
			opts.WrapNode, opts.MemoryBudget = c.wrapNode, budget*int64(c.lim.Nodes)
		}
	}
	return opts, nil
}

// track records a started server for the sweep after a SIGKILL, and has
// the end of the cell stop it and forget it.
func (c *cellRun) track(inst target.Instance) {
	if c.t.Managed() && !c.t.Embedded() {
		for _, pid := range inst.PIDs() {
			c.Ledger.AddServer(pid, filepath.Dir(inst.DataDir()))
		}
		c.later(func() {
			for _, pid := range inst.PIDs() {
				c.Ledger.ForgetServer(pid, filepath.Dir(inst.DataDir()))
			}
		})
	}
	c.later(func() {
		// stopping must happen even when ctx is cancelled (Ctrl-C)
		stopCtx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if err := inst.Stop(stopCtx); err != nil {
			logf(c.Log, "stop %s: %v", c.t.Name(), err)
		}
	})
}

// open is the workload's session on the server at its endpoint (on SQL
// through the instance's pool), wrapped by the cell's application in the
// loop when it has one; the end of the cell closes it before the server
// stops.
func (c *cellRun) open() error {
	var db *sql.DB
	if si, ok := c.inst.(target.SQLInstance); ok {
		db = si.DB()
	}
	sess, err := workload.Open(c.w, c.inst.Endpoint(), db)
	if err != nil {
		return err
	}
	if x, ok := c.inst.(workload.SchemaExecer); ok {
		// a server of several nodes makes the tables on each its own way
		if ss, ok := sess.(*workload.SQLSession); ok {
			ss.SchemaBy(x)
		}
	}
	c.sess = sess
	c.later(func() {
		if err := sess.Close(); err != nil {
			logf(c.Log, "%v", err)
		}
	})
	if name := c.cell.Conditions.App; name != "" {
		return c.openApp(name)
	}
	return nil
}

// settleLoad makes the loaded database look like one in use: the load's
// dirty pages written, the LSM compacted, PostgreSQL's tables vacuumed;
// otherwise the first cells pay for the load in their bytes written and
// their times. Then the disk caps take hold.
func (c *cellRun) settleLoad(ctx context.Context) error {
	settled := time.Now()
	loadTook := time.Duration(c.f.Load.Seconds * float64(time.Second))
	limit, least := c.stepLimit(loadTook)
	db, d := c.sqlHandles()
	if hook := c.beforeStep; hook != nil {
		hook(ctx, "settle", db)
	}
	var note string
	late, err := boundStep(ctx, limit, c.inst.PIDs(), db, d, func(ctx context.Context) (err error) {
		note, err = c.inst.Settle(ctx)
		return err
	})
	if late != nil {
		return fmt.Errorf("settle after the load: the server stopped answering: the settling (flushes, compaction, VACUUM) went unanswered for %v (the bound: ten times the load's %v, at least %v); %s",
			late.waited.Round(time.Second), loadTook.Round(100*time.Millisecond), least, late.evidence)
	}
	if err != nil {
		return fmt.Errorf("settle after the load: %w", err)
	}
	c.f.Load.Note = note
	c.f.Load.SettleS = time.Since(settled).Seconds()
	if c.embeddedInAgent() {
		if err := c.recacheInGroup(); err != nil {
			return fmt.Errorf("move the loaded database's pages into the cell's cgroups: %w", err)
		}
		c.f.Limits.Notes = append(c.f.Limits.Notes, "the loaded database's pages dropped from shootout's page cache (its process loaded them outside the cell's cgroups) and read once inside the cell's cgroups, which keep what their memory cap leaves")
	}
	if c.group != nil && (c.lim.Server.IOPS > 0 || c.lim.Server.BPS > 0) {
		if err := c.group.ApplyIO(); err != nil {
			return err
		}
		c.f.Limits.Notes = append(c.f.Limits.Notes, "disk caps applied after the load: the dataset loads at full speed, the workload runs capped")
	}
	if c.disk != nil {
		c.disk.Activate(true)
		c.f.Limits.Notes = append(c.f.Limits.Notes, "disk model on after the load: the dataset loads at the raw disk's speed, the workload runs on the model")
	}
	return nil
}

// sqlHandles are the pool and dialect of a session on a SQL server, for
// the evidence only SQL gives (a stall's sessions, the engine's writes,
// the tables' bytes); any other has neither.
func (c *cellRun) sqlHandles() (*sql.DB, dialect.Dialect) {
	if s, ok := c.sess.(workload.SQLServer); ok {
		return s.DB(), s.Dialect()
	}
	return nil, dialect.Dialect{}
}

// liftIO removes the disk caps once the window is measured: a cap left on
// only slows the checks, the settling and the shutdown.
func (c *cellRun) liftIO() {
	if c.disk != nil {
		c.disk.Activate(false)
	}
	if c.group == nil || (c.lim.Server.IOPS == 0 && c.lim.Server.BPS == 0) {
		return
	}
	if err := c.group.LiftIO(); err != nil {
		c.f.Limits.Notes = append(c.f.Limits.Notes, "disk caps kept after the run: "+err.Error())
	} else {
		c.f.Limits.Notes = append(c.f.Limits.Notes, "disk caps lifted after the run: the checks and the settling run at full speed")
	}
}

// check runs the workload's invariants, keeps the top statements, and
// measures the space before and after settling.
func (c *cellRun) check(ctx context.Context, m *measured) error {
	checkCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if db, _ := c.sqlHandles(); c.beforeCheck != nil && db != nil {
		if err := c.beforeCheck(checkCtx, db); err != nil {
			return err
		}
	}
	dres := m.driver
	inv := c.sess.Check(checkCtx, c.ds, m.before, dres.Counters)
	f := c.f
	f.Invariants = result.Invariants{OK: inv.OK, Checked: inv.Checked, Failures: inv.Failures, Drift: inv.Drift, Plans: inv.Plans}
	for _, st := range inv.SessionTypes {
		f.Invariants.SessionTypes = append(f.Invariants.SessionTypes, result.SessionType(st))
	}
	c.checkNodes(checkCtx)
	inv.OK, inv.Failures = f.Invariants.OK, f.Invariants.Failures
	if a := c.inLoop(); a != nil && len(c.appErrors) > 0 {
		f.Invariants.Drift = append(f.Invariants.Drift, a.Name()+"'s log: "+strings.Join(c.appErrors, "; "))
		inv.Drift = f.Invariants.Drift
	}
	f.Counters = dres.Counters
	for i, st := range dres.Statements {
		if i == topStatements {
			break
		}
		f.Statements = append(f.Statements, result.Statement{Name: st.Name, Query: st.Query, Calls: st.Calls,
			TotalMs: float64(st.TotalNs) / 1e6, MeanMs: float64(st.TotalNs) / 1e6 / float64(max(st.Calls, 1)), MaxMs: float64(st.MaxNs) / 1e6})
	}

	dir := c.inst.DataDir()
	f.Space.Bytes = metrics.DirBytes(dir)
	if note, err := c.inst.Settle(checkCtx); err != nil {
		f.Space.Note = "settle failed: " + err.Error()
	} else {
		f.Space.SettledBytes = metrics.DirBytes(dir)
		f.Space.Note = note
	}
	if dir == "" {
		f.Space.Note = "external server: data directory unknown"
	}
	if err := c.tableBytes(checkCtx); err != nil {
		f.Space.Note = strings.TrimPrefix(f.Space.Note+"; table size unknown: "+err.Error(), "; ")
	}
	logf(c.Log, "space: %.1f MB, settled %.1f MB, tables and indexes %.1f MB; invariants: %s",
		mb(f.Space.Bytes), mb(f.Space.SettledBytes), mb(f.Space.TableBytes), okText(inv))
	for _, d := range inv.Drift {
		logf(c.Log, "drift: %s", d)
	}
	if c.mortal != nil && (!inv.OK || strings.Contains(f.Space.Note, "failed")) {
		// a server that died in the checks would pass for a broken
		// invariant: an error lets failed() name the death
		select {
		case <-c.mortal.Exited():
			return fmt.Errorf("checks after the run: %s", strings.Join(append(inv.Failures, f.Space.Note), "; "))
		case <-time.After(time.Second):
		}
	}
	return nil
}

// dataSizer is an instance that counts its data itself (a native
// server's own figure).
type dataSizer interface {
	DataBytes(ctx context.Context) (int64, error)
}

// tableBytes is what the server says the workload's data takes: the
// server's own count, or a SQL server's tables and indexes.
func (c *cellRun) tableBytes(ctx context.Context) error {
	if ds, ok := c.inst.(dataSizer); ok {
		n, err := ds.DataBytes(ctx)
		c.f.Space.TableBytes = n
		return err
	}
	db, d := c.sqlHandles()
	if db == nil {
		return errors.New("the server cannot say")
	}
	return db.QueryRowContext(ctx, d.TableBytesQuery()).Scan(&c.f.Space.TableBytes)
}

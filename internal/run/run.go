// Package run executes cells end to end: start the target, load the
// dataset, drive the workload, sample the server, check invariants, and
// write the cell's result file the moment it ends.
package run

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"shootout/internal/driver"
	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// Runner runs the cells of one resolved plan into one results directory.
type Runner struct {
	OutDir   string
	WorkDir  string // servers' data directories; default OutDir/work
	Log      io.Writer
	Resume   bool
	KeepData bool
	// AllowUnlimited runs a cell whose limits cannot be applied, marked so.
	AllowUnlimited bool
	// Ledger records servers and cgroups for the sweep after a SIGKILL.
	Ledger *limits.Ledger
	// Hooks, when set, are told about each cell's result (tests use them).
	OnCell func(*result.File)
	// beforeCheck runs between the workload and its invariant check: tests
	// break the data there to prove a broken invariant fails the cell.
	beforeCheck func(context.Context, *sql.DB) error
}

// Cell runs one cell and returns its result; it never returns nil, and a
// failure anywhere is recorded in Status with the reason.
func (r *Runner) Cell(ctx context.Context, res *plan.Resolved, cell result.Cell) *result.File {
	f := &result.File{Cell: cell, Started: time.Now().UTC(), Status: "ok"}
	err := r.prepareDirs()
	if err == nil {
		err = r.cell(ctx, res, cell, f)
	}
	f.Ended = time.Now().UTC()
	if err != nil {
		if ctx.Err() != nil {
			f.Status = "failed: interrupted (" + err.Error() + ")"
		} else {
			f.Status = "failed: " + err.Error()
		}
	} else if !f.Invariants.OK {
		f.Status = "failed: invariants: " + strings.Join(f.Invariants.Failures, "; ")
	}
	f.Status = oneLine(f.Status)
	return f
}

func rateText(rate int) string {
	if rate == 0 {
		return ", at full speed (within the IOPS cap it shares with the server, if any)"
	}
	return fmt.Sprintf(", at most %d read and %d write IOPS", rate, rate)
}

// shortID keeps cgroup names readable and unique per cell and process.
func shortID(id string) string {
	if len(id) > 60 {
		id = id[:60]
	}
	return fmt.Sprintf("%d-%s", os.Getpid(), strings.NewReplacer("%", "pct", "/", "_").Replace(id))
}

// topStatements is how many statements a result keeps, by total time.
const topStatements = 15

func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// oneLine keeps a status to one line: server logs quoted in errors span many.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " | ")), " ")
}

func (r *Runner) cell(ctx context.Context, res *plan.Resolved, cell result.Cell, f *result.File) error {
	// the cell holds the masked name; the resolved target keeps the DSN
	t := res.Target(cell.Target)
	if t == nil {
		return fmt.Errorf("target %s is not in the plan", cell.Target)
	}
	w, err := workload.New(cell.Workload, cell.Params)
	if err != nil {
		return err
	}
	ds, err := w.Dataset(cell.Dataset, res.Seed)
	if err != nil {
		return err
	}
	budget := cell.Conditions.MemoryBytes
	if budget == 0 {
		budget = metrics.MemAvailable()
		f.Limits.Notes = append(f.Limits.Notes, fmt.Sprintf("no --memory: caches sized from the %s of available memory", target.HumanBytes(budget)))
	}
	req := limits.Request{MemoryBytes: cell.Conditions.MemoryBytes, IOPS: cell.Conditions.IOPS, BPS: cell.Conditions.BPS}
	var cpus limits.CPUPlan
	if t.Managed() && !t.Embedded() {
		if cpus, err = limits.PlanCPUs(cell.Conditions.CPUs); err != nil {
			return err
		}
		if cpus.Default && cpus.Server != "" {
			if err := limits.Check(limits.Request{CPUs: cpus.Server}); err != nil {
				f.Limits.Notes = append(f.Limits.Notes, "server and client share every CPU: "+err.Error())
				cpus = limits.CPUPlan{}
			}
		}
		req.CPUs, req.CPUQuota = cpus.Server, cpus.Quota
	}
	var group *limits.Group
	switch {
	case req.Empty():
	case t.Embedded():
		f.Limits.Notes = append(f.Limits.Notes, "limits not applied: the embedded database runs inside shootout's own process")
	case !t.Managed():
		f.Limits.Notes = append(f.Limits.Notes, "limits not applied: an external server runs outside shootout's control")
	default:
		if err := limits.Check(req); err != nil {
			if !r.AllowUnlimited {
				return err
			}
			f.Limits.Notes = append(f.Limits.Notes, "limits not applied: "+err.Error())
			break
		}
		// the seed loaded its data before the measured part; a disk cap
		// during the load would only make loading take minutes
		req.DeferIO = true
		if group, err = limits.Create(shortID(cell.ID), req, r.WorkDir); err != nil {
			return err
		}
		r.Ledger.AddCgroups(group.Dirs())
		defer func() {
			if err := group.Remove(); err != nil {
				logf(r.Log, "%v", err)
			}
			r.Ledger.ForgetCgroups(group.Dirs())
		}()
		if cpus.Client != "" {
			pin, err := limits.PinSelf(shortID(cell.ID)+"-client", cpus.Client)
			if err != nil {
				return err
			}
			r.Ledger.AddCgroups(pin.Dirs())
			defer func() {
				if err := pin.Unpin(); err != nil {
					logf(r.Log, "%v", err)
					return // never remove a cgroup shootout may still be in
				}
				r.Ledger.ForgetCgroups(pin.Dirs())
			}()
		}
		if req.CPUs != "" || req.CPUQuota > 0 {
			f.Limits.Notes = append(f.Limits.Notes, cpus.String())
		}
	}
	dl := t.Dialect()
	f.Target = result.Target{Name: t.Name(), Flavor: string(dl.Flavor), Engine: dl.Engine}

	opts := target.StartOptions{WorkDir: r.WorkDir, MemoryBudget: budget, Settings: res.Settings[cell.Target], Log: r.Log, KeepData: r.KeepData}
	if group != nil {
		opts.Wrap = group.Wrap
	}
	inst, err := t.Start(ctx, opts)
	if err != nil {
		return fmt.Errorf("start %s: %w", t.Name(), err)
	}
	if t.Managed() && !t.Embedded() {
		for _, pid := range inst.PIDs() {
			r.Ledger.AddServer(pid, filepath.Dir(inst.DataDir()))
		}
		defer func() {
			for _, pid := range inst.PIDs() {
				r.Ledger.ForgetServer(pid, filepath.Dir(inst.DataDir()))
			}
		}()
	}
	defer func() {
		// stopping must happen even when ctx is cancelled (Ctrl-C)
		stopCtx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if err := inst.Stop(stopCtx); err != nil {
			logf(r.Log, "stop %s: %v", t.Name(), err)
		}
	}()
	d := inst.Dialect()
	db := inst.DB()
	f.Target.Applied = inst.Applied()
	if f.Target.Version, err = inst.Version(ctx); err != nil {
		return fmt.Errorf("read server version: %w", err)
	}
	if f.Target.Settings, err = inst.Settings(ctx); err != nil {
		return fmt.Errorf("read server settings: %w", err)
	}

	if err := r.load(ctx, t, inst, w, ds, f); err != nil {
		return err
	}
	// as a database in use has: the load's dirty pages written, the LSM
	// compacted, PostgreSQL's tables vacuumed; otherwise the first cells
	// pay for the load in their bytes written and their times
	settled := time.Now()
	if err := inst.Settle(ctx); err != nil {
		return fmt.Errorf("settle after the load: %w", err)
	}
	f.Load.SettleS = time.Since(settled).Seconds()
	if group != nil && (req.IOPS > 0 || req.BPS > 0) {
		if err := group.ApplyIO(); err != nil {
			return err
		}
		f.Limits.Notes = append(f.Limits.Notes, "disk caps applied after the load: the dataset loads at full speed, the workload runs capped")
	}
	before, err := w.Before(ctx, db, d, ds)
	if err != nil {
		return err
	}

	writesBefore, writesKnown, err := d.ReadEngineWrites(ctx, db)
	if err != nil {
		f.Server.Note = "engine write counters unreadable: " + err.Error()
	}

	cfg := driver.Config{Clients: cell.Clients, Ops: cell.Ops, Rate: cell.Rate, Trim: res.Trim, Interval: res.Interval,
		MaxRetries: res.MaxRetries, OpNames: w.Ops(), Out: r.Log}
	if cell.Duration != "" {
		cfg.Duration, _ = time.ParseDuration(cell.Duration)
	}
	connect := func(ctx context.Context, client int) (workload.Worker, error) {
		conn, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		wk, err := w.NewWorker(ctx, conn, d, ds, client)
		if err != nil {
			conn.Close()
			return nil, err
		}
		return wk, nil
	}
	logf(r.Log, "running %s: %d clients, %s", cell.Workload, cell.Clients, describeStop(cfg))
	// the neighbour stops when the driven run does, so the checks and the
	// settling after it are not slowed by it
	stopNeighbour := func() {}
	nbEvidence := map[string]string{}
	var nbErr error // a neighbour that did not run or report: the condition was not what the cell says
	if spec := limits.NeighbourSpec(cell.Conditions.Neighbour); spec != "0" && spec != "" {
		maxRun := cfg.Duration
		if maxRun == 0 {
			maxRun = 10 * time.Minute // an --ops cell: fio still stops by itself
		}
		nbStart := time.Now()
		nb, err := limits.StartNeighbour(ctx, spec, r.WorkDir, res.NeighbourFileBytes, cell.Conditions.IOPS, maxRun+time.Minute, group)
		if err != nil {
			return fmt.Errorf("neighbour %s: %w", spec, err)
		}
		for _, pid := range nb.PIDs() {
			r.Ledger.AddServer(pid, nb.Dir)
		}
		logf(r.Log, "neighbour %s: fio, %d job(s) of random 4k 50/50 read/write, direct IO%s; running after %.1f s", spec, nb.Jobs, rateText(nb.Rate), time.Since(nbStart).Seconds())
		var once sync.Once
		stopNeighbour = func() {
			once.Do(func() {
				nr, err := nb.Stop()
				for _, pid := range nb.PIDs() {
					r.Ledger.ForgetServer(pid, nb.Dir)
				}
				nbEvidence["neighbour.jobs"] = fmt.Sprint(nb.Jobs)
				if err != nil {
					nbErr = err
					f.Limits.Notes = append(f.Limits.Notes, "neighbour: "+err.Error())
					return
				}
				nbEvidence["neighbour.read_iops"] = fmt.Sprintf("%.1f", nr.ReadIOPS)
				nbEvidence["neighbour.write_iops"] = fmt.Sprintf("%.1f", nr.WriteIOPS)
				logf(r.Log, "neighbour %s achieved %.0f read + %.0f write IOPS", spec, nr.ReadIOPS, nr.WriteIOPS)
			})
		}
		defer stopNeighbour()
	}
	var ioBefore int64
	if group != nil {
		ioBefore = group.IOServiced()
	}
	disk := startDiskWindow(inst.DataDir())
	sampler := metrics.Start(inst.PIDs(), time.Second)
	runStart := time.Now()
	dres, runErr := driver.Run(ctx, cfg, connect)
	usage := sampler.Stop()
	runSecs := time.Since(runStart).Seconds()
	disk.stop() // before the neighbour stops: its IO is taken out by rate
	stopNeighbour()
	if dres != nil {
		fillDriver(f, dres)
		note := f.Server.Note
		fillServer(f, usage, dres.Events, inst)
		f.Server.Note = joinNotes(f.Server.Note, note)
		disk.fill(&f.Server, dres.Events, nbEvidence)
		if writesKnown && dres.Events > 0 {
			// PostgreSQL's read waits for the clients' backends to exit,
			// which is when they publish their statistics
			after, ok, err := d.ReadEngineWrites(ctx, db)
			if ok {
				w, n := after.Sub(writesBefore), float64(dres.Events)
				f.Server.EngineWrites = &result.EngineWrites{LogBytesPerOp: float64(w.LogBytes) / n, DataBytesPerOp: float64(w.DataBytes) / n,
					FullPageImagesPerOp: float64(w.FullPageImages) / n, Source: w.Source}
			} else if err != nil {
				f.Server.Note = joinNotes(f.Server.Note, "engine write counters unreadable after the run: "+err.Error())
			}
		}
		f.Server.WriteAmplification = writeAmplification(f.Server, dres.Counters)
		dres.WriteSummary(r.Log)
	}
	if group != nil {
		f.Limits.Applied = true
		f.Limits.Settings = group.Applied
		f.Limits.Evidence = group.Evidence()
		if ios := group.IOServiced() - ioBefore; ios > 0 && dres != nil && dres.Events > 0 {
			f.Server.IOOpsPerOp = float64(ios) / float64(dres.Events)
		}
		if req.CPUQuota > 0 && runSecs > 0 && usage.Measured {
			// what the quota left the server during the driven run
			f.Limits.Evidence["server_cpu_cores_during_run"] = fmt.Sprintf("%.3f", usage.ServerCPUSeconds/runSecs)
		}
		if req.IOPS > 0 && runSecs > 0 {
			// the cap's effect on the driven run alone, load excluded
			f.Limits.Evidence["io_serviced_per_s_during_run"] = fmt.Sprintf("%.1f", float64(group.IOServiced()-ioBefore)/runSecs)
		}
		if req.IOPS > 0 || req.BPS > 0 {
			// the run is measured: a cap left on only slows what follows
			if err := group.LiftIO(); err != nil {
				f.Limits.Notes = append(f.Limits.Notes, "disk caps kept after the run: "+err.Error())
			} else {
				f.Limits.Notes = append(f.Limits.Notes, "disk caps lifted after the run: the checks and the settling run at full speed")
			}
		}
	}
	if len(nbEvidence) > 0 {
		if f.Limits.Evidence == nil {
			f.Limits.Evidence = map[string]string{}
		}
		for k, v := range nbEvidence {
			f.Limits.Evidence[k] = v
		}
	}
	if runErr != nil {
		return fmt.Errorf("run: %w", runErr)
	}
	if nbErr != nil {
		return fmt.Errorf("neighbour %s was not measured: %w", cell.Conditions.Neighbour, nbErr)
	}

	checkCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if r.beforeCheck != nil {
		if err := r.beforeCheck(checkCtx, db); err != nil {
			return err
		}
	}
	inv := w.Check(checkCtx, db, d, ds, before, dres.Counters)
	f.Invariants = result.Invariants{OK: inv.OK, Checked: inv.Checked, Failures: inv.Failures}
	f.Counters = dres.Counters
	for i, st := range dres.Statements {
		if i == topStatements {
			break
		}
		f.Statements = append(f.Statements, result.Statement{Name: st.Name, Query: st.Query, Calls: st.Calls,
			TotalMs: float64(st.TotalNs) / 1e6, MeanMs: float64(st.TotalNs) / 1e6 / float64(max(st.Calls, 1)), MaxMs: float64(st.MaxNs) / 1e6})
	}

	f.Space.Bytes = metrics.DirBytes(inst.DataDir())
	if err := inst.Settle(checkCtx); err != nil {
		f.Space.Note = "settle failed: " + err.Error()
	} else {
		f.Space.SettledBytes = metrics.DirBytes(inst.DataDir())
	}
	if inst.DataDir() == "" {
		f.Space.Note = "external server: data directory unknown"
	}
	if err := db.QueryRowContext(checkCtx, d.TableBytesQuery()).Scan(&f.Space.TableBytes); err != nil {
		f.Space.Note = strings.TrimPrefix(f.Space.Note+"; table size unknown: "+err.Error(), "; ")
	}
	logf(r.Log, "space: %.1f MB, settled %.1f MB, tables and indexes %.1f MB; invariants: %s",
		mb(f.Space.Bytes), mb(f.Space.SettledBytes), mb(f.Space.TableBytes), okText(inv))
	return nil
}

func fillDriver(f *result.File, d *driver.Result) {
	f.Ops = map[string]result.Op{}
	for name, s := range d.Ops {
		f.Ops[name] = result.Op{Snapshot: s.Snapshot, Errors: s.Errors, TrimmedHead: s.TrimmedHead, TrimmedTail: s.TrimmedTail, Untrimmed: s.Untrimmed}
	}
	evAvg, evSD, tAvg, tSD := d.Fairness()
	f.Throughput = result.Throughput{
		Seconds: d.Elapsed.Seconds(), Events: d.Events, TPS: d.TPS(), QPS: d.QPS(),
		Reads: d.Reads, Writes: d.Writes, Other: d.Other, Errors: d.Errors, ErrorsBy: d.ByClass,
		Retries: d.Retries, GivenUp: d.FailedOps, Reconnects: d.Reconnects, Latency: d.All,
		EventsAvg: evAvg, EventsStddev: evSD, TimeAvgS: tAvg, TimeStddevS: tSD,
	}
	for _, iv := range d.Intervals {
		f.Intervals = append(f.Intervals, result.Interval{AtS: iv.AtS, TPS: iv.TPS, QPS: iv.QPS, ReadsPS: iv.ReadsPS,
			WritesPS: iv.WritesPS, OtherPS: iv.OtherPS, P95Ms: iv.P95Ms, ErrPS: iv.ErrPS, ReconnPS: iv.ReconnPS})
	}
}

func fillServer(f *result.File, u metrics.Report, events int64, inst target.Instance) {
	per := func(x float64) float64 {
		if events == 0 {
			return 0
		}
		return x / float64(events)
	}
	f.Client = result.Client{CPUSeconds: u.ClientCPUSeconds, CPUSecondsPerOp: per(u.ClientCPUSeconds)}
	f.Server = result.Server{Measured: u.Measured, CPUSeconds: u.ServerCPUSeconds, CPUSecondsPerOp: per(u.ServerCPUSeconds),
		ReadBytes: u.ServerReadBytes, WriteBytes: u.ServerWriteBytes,
		ReadBytesPerOp: per(float64(u.ServerReadBytes)), WriteBytesPerOp: per(float64(u.ServerWriteBytes)),
		PeakRSSBytes: u.PeakRSSBytes, MaxLoadAvg: u.MaxLoadAvg,
		ContextSwitches: u.CtxSwitches, ContextSwitchesPerOp: per(float64(u.CtxSwitches))}
	switch {
	case !u.Measured:
		f.Server.Note = "server processes unknown (external server): only the load average is measured"
	case len(inst.PIDs()) == 1 && inst.PIDs()[0] == os.Getpid():
		f.Server.Note = "embedded: the server is the shootout process, so these figures include the client's"
	}
}

func describeStop(c driver.Config) string {
	var parts []string
	if c.Duration > 0 {
		parts = append(parts, c.Duration.String())
	}
	if c.Ops > 0 {
		parts = append(parts, fmt.Sprintf("%d operations", c.Ops))
	}
	if c.Rate > 0 {
		parts = append(parts, fmt.Sprintf("at %.0f ops/s", c.Rate))
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func mb(b int64) float64 { return float64(b) / 1e6 }

func okText(inv workload.Invariants) string {
	if inv.OK {
		return fmt.Sprintf("ok (%d checked)", len(inv.Checked))
	}
	return "FAILED: " + strings.Join(inv.Failures, "; ")
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// ErrCellsFailed is returned by callers when any cell failed (exit 1).
var ErrCellsFailed = errors.New("some cells failed")

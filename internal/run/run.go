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
	"strings"
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
	// badInput is the bad input a cell found, which ends the matrix
	badInput error
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
	// duringRun, when set, runs beside the clients from the start of the
	// driven run: tests break connections there.
	duringRun func(context.Context, *sql.DB)
	// stallLimit replaces driver.DefaultStallLimit, loadStallLimit
	// defaultLoadStallLimit, stepLimitLeast defaultStepLimit,
	// interruptGrace driver.DefaultInterruptGrace (tests wait less)
	stallLimit, loadStallLimit, stepLimitLeast, interruptGrace time.Duration
	// duringLoad, when set, runs once the load's first batch has landed,
	// before the next is sent, and returns once its interference is in
	// place (a lock held): loadStallLimit is armed only then, so a slow
	// batch on a busy machine does not fire a test's short limit first
	duringLoad func(context.Context, *sql.DB)
	// fakeCell, when set, stands in for Cell in the matrix: tests of
	// the matrix's own logic (rounds, repeats) need no server
	fakeCell func(context.Context, *plan.Resolved, result.Cell) *result.File
	// beforeStep, when set, runs before each step that reports no
	// progress: "postload" (the index builds) and "settle"
	beforeStep func(ctx context.Context, step string, db *sql.DB)
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
	if errors.Is(err, workload.ErrBadInput) {
		r.badInput = err
	}
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

func fillDriver(f *result.File, d *driver.Result) {
	f.Ops = map[string]result.Op{}
	for name, s := range d.Ops {
		f.Ops[name] = result.Op{Snapshot: s.Snapshot, Errors: s.Errors, TrimmedHead: s.TrimmedHead, TrimmedTail: s.TrimmedTail, Untrimmed: s.Untrimmed}
	}
	evAvg, evSD, tAvg, tSD := d.Fairness()
	f.Throughput = result.Throughput{
		Seconds: d.Elapsed.Seconds(), StartedAt: d.Started.UTC(), Events: d.Events, TPS: d.TPS(), QPS: d.QPS(),
		Reads: d.Reads, Writes: d.Writes, Other: d.Other, Errors: d.Errors, ErrorsBy: d.ByClass,
		Retries: d.Retries, GivenUp: d.FailedOps, Reconnects: d.Reconnects, Latency: d.All,
		EventsAvg: evAvg, EventsStddev: evSD, TimeAvgS: tAvg, TimeStddevS: tSD,
	}
	if note := splitCertConflicts(&f.Throughput, f.Nodes); note != "" {
		f.Limits.Notes = append(f.Limits.Notes, note)
	}
	defer nodeDeaths(f)
	defer nodeCuts(f)
	if pause, from := d.LongestPause(); pause > 0 {
		f.Throughput.LongestPauseS, f.Throughput.PauseFromS = pause.Seconds(), from.Seconds()
	}
	for _, iv := range d.Intervals {
		f.Intervals = append(f.Intervals, result.Interval{AtS: iv.AtS, TPS: iv.TPS, QPS: iv.QPS, ReadsPS: iv.ReadsPS,
			WritesPS: iv.WritesPS, OtherPS: iv.OtherPS, P95Ms: iv.P95Ms, ErrPS: iv.ErrPS, ReconnPS: iv.ReconnPS})
	}
}

// counters are the finer counters the cell's sampler takes: the server's
// CPU from its cgroup, and the disk model's CPU, which runs in shootout's
// process, apart from the client's.
func (c *cellRun) counters() metrics.Counters {
	var k metrics.Counters
	// an application in the loop runs in the server's cgroup, whose
	// counter would add its CPU to the server's: the server's process
	// tree, from /proc, is then the only count of the server alone
	if c.inLoop() == nil {
		k.Server = c.group.CPUCounter()
	}
	if c.disk != nil {
		k.NotClient = c.disk.CPU
	}
	return k
}

func fillServer(f *result.File, u metrics.Report, events int64, inst target.Instance) {
	per := func(x float64) float64 {
		if events == 0 {
			return 0
		}
		return x / float64(events)
	}
	f.Client = result.Client{CPUSeconds: u.ClientCPUSeconds, CPUSecondsPerOp: per(u.ClientCPUSeconds), DiskModelCPUSeconds: u.NotClientCPUSeconds}
	f.Server = result.Server{Measured: u.Measured, ReadBytes: u.ServerReadBytes, WriteBytes: u.ServerWriteBytes,
		ReadBytesPerOp: per(float64(u.ServerReadBytes)), WriteBytesPerOp: per(float64(u.ServerWriteBytes)),
		PeakRSSBytes: u.PeakRSSBytes, MaxLoadAvg: u.MaxLoadAvg,
		ContextSwitches: u.CtxSwitches, ContextSwitchesPerOp: per(float64(u.CtxSwitches))}
	if u.Measured {
		f.Server.CPUSource, f.Server.CPUResolutionS = u.ServerCPUSource, u.ServerCPUResolution.Seconds()
		if u.ServerCPUResolved {
			cpu, perOp := u.ServerCPUSeconds, per(u.ServerCPUSeconds)
			f.Server.CPUSeconds, f.Server.CPUSecondsPerOp = &cpu, &perOp
		} else {
			f.Server.Note = joinNotes(f.Server.Note, fmt.Sprintf("server CPU n/a: %s counts in %v, the window lasted %v",
				u.ServerCPUSource, u.ServerCPUResolution, u.Window.Round(time.Microsecond)))
		}
	}
	f.Server.Host = &result.Host{StealShare: u.Host.Steal}
	if u.Measured {
		others := u.Host.Others
		f.Server.Host.OtherProcessesShare = &others
	}
	switch {
	case !u.Measured:
		f.Server.Note = "server processes unknown (external server): only the load average is measured"
	case len(inst.PIDs()) == 1 && inst.PIDs()[0] == os.Getpid():
		f.Server.Note = joinNotes(f.Server.Note, "embedded: the server is the shootout process, so these figures include the client's"+
			" (and, on a modelled disk, the model's)")
		// the client's CPU is the same process's, already all in the
		// server's: kept in both, a sum of the two counted it twice
		f.Client = result.Client{}
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
	if c.Reps > 0 {
		parts = append(parts, fmt.Sprintf("%d operations per client", c.Reps))
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

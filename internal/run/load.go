package run

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"shootout/internal/result"
	"shootout/internal/workload"
)

// load fills the server through the cell's session (on a server
// shootout did not start, only where shootout's own marker is), then
// runs the load's last steps, which report no progress, under one bound.
func (c *cellRun) load(ctx context.Context) error {
	start := time.Now()
	stats, err := c.loadRows(ctx)
	if err != nil {
		return err
	}
	if a := c.inLoop(); a != nil {
		c.f.Target.App = a.Version()
	}
	if stats.Reused {
		// the caller says so: a cell in its log, prepare in its summary
		c.f.Load.Reused = true
		return nil
	}
	for _, n := range stats.Notes {
		logf(c.Log, "%s", n)
	}
	idx := time.Now()
	setup := time.Duration(stats.SetupSeconds * float64(time.Second))
	if err := c.finishLoad(ctx, idx.Sub(start)-setup); err != nil {
		return err
	}
	f := c.f
	f.Load = result.Load{Seconds: time.Since(start).Seconds() - stats.SetupSeconds, Rows: stats.Rows, Tables: stats.Tables,
		IndexS: time.Since(idx).Seconds(), SchemaDDL: stats.SchemaDDL, Notes: stats.Notes}
	if f.Load.Seconds > 0 {
		f.Load.RowsPerS = float64(stats.Rows) / f.Load.Seconds
	}
	c.logLoad(stats)
	return nil
}

// loadRows is the session's Load with a progress bar, watched: a load
// whose batches stop landing is cancelled, with what the server was
// doing.
func (c *cellRun) loadRows(ctx context.Context) (workload.LoadStats, error) {
	total := c.ds.Rows
	if c.ds.LoadRows > 0 {
		total = c.ds.LoadRows
	}
	unit := "rows"
	if c.ds.LoadInBytes {
		unit = "bytes"
	}
	progress, finish := c.progress(total, "loading "+c.ds.Name, unit)
	db, d := c.sqlHandles()
	loadCtx, progress, watch := watchLoad(ctx, c.loadStallLimit, progress)
	if hook := c.duringLoad; hook != nil && db != nil {
		watch.arm(0) // the test's limit is armed once its hook interferes
		var once sync.Once
		fed := progress
		progress = func(rows int64) {
			fed(rows)
			once.Do(func() {
				hook(ctx, db)
				watch.arm(c.loadStallLimit)
			})
		}
	}
	stats, err := c.sess.Load(loadCtx, c.ds, progress)
	finish()
	if stall := watch.stop(); stall != nil {
		return stats, fmt.Errorf("load dataset %s: %w; %s", c.ds.Name, stall, stallEvidence(ctx, c.inst.PIDs(), db, d))
	}
	if err != nil {
		return stats, fmt.Errorf("load dataset %s: %w", c.ds.Name, err)
	}
	return stats, nil
}

// finishLoad runs a session's last load steps (PostLoad's index builds)
// under the step bound; past it the cell fails naming the step in
// flight.
func (c *cellRun) finishLoad(ctx context.Context, loadTook time.Duration) error {
	fin, ok := c.sess.(workload.Finisher)
	if !ok {
		return nil
	}
	db, d := c.sqlHandles()
	if hook := c.beforeStep; hook != nil {
		hook(ctx, "postload", db)
	}
	limit, least := c.stepLimit(loadTook)
	var current atomic.Value
	current.Store("")
	late, err := boundStep(ctx, limit, c.inst.PIDs(), db, d, func(ctx context.Context) error {
		return fin.FinishLoad(ctx, c.ds, func(what string) { current.Store(what) })
	})
	if late != nil {
		return fmt.Errorf("build indexes after load: the server stopped answering after the load: %q went unanswered for %v (the bound: ten times the load's %v, at least %v); %s",
			current.Load(), late.waited.Round(time.Second), loadTook.Round(100*time.Millisecond), least, late.evidence)
	}
	if err != nil {
		return fmt.Errorf("build indexes after load: %w", err)
	}
	return nil
}

// logLoad records how fast each table's rows went in and says so, per
// table for the large ones.
func (c *cellRun) logLoad(stats workload.LoadStats) {
	f := c.f
	var perTable, names []string
	for t := range stats.Tables {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		if secs := stats.TableSeconds[t]; secs > 0 {
			if f.Load.TableRowsPerS == nil {
				f.Load.TableRowsPerS = map[string]float64{}
			}
			f.Load.TableRowsPerS[t] = float64(stats.Tables[t]) / secs
			if stats.Tables[t] >= 10000 { // the tables that take the time
				perTable = append(perTable, fmt.Sprintf("%s %d rows at %.0f/s", t, stats.Tables[t], f.Load.TableRowsPerS[t]))
			}
		}
	}
	logf(c.Log, "loaded %d rows in %.1f s (%.0f rows/s; indexes %.1f s)", stats.Rows, f.Load.Seconds, f.Load.RowsPerS, f.Load.IndexS)
	if len(perTable) > 0 {
		logf(c.Log, "  %s", strings.Join(perTable, ", "))
	}
}

// progress shows a bar on a terminal, and a line every 5 s elsewhere (CI
// logs, files), so long loads are visible without filling a log with bars.
// unit is "rows", or "bytes" for a load that counts its input read.
func (r *Runner) progress(total int64, what, unit string) (workload.Progress, func()) {
	if r.Log == nil {
		return nil, func() {}
	}
	if f, ok := r.Log.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts := []progressbar.Option{progressbar.OptionSetWriter(r.Log), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionThrottle(200 * time.Millisecond), progressbar.OptionClearOnFinish()}
		if unit == "bytes" {
			opts = append(opts, progressbar.OptionShowBytes(true))
		} else {
			opts = append(opts, progressbar.OptionSetItsString(unit))
		}
		bar := progressbar.NewOptions64(total, opts...)
		return func(n int64) { bar.Add64(n) }, func() { bar.Finish() }
	}
	var mu sync.Mutex
	var done int64
	start := time.Now()
	last := start
	return func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		done += n
		if now := time.Now(); now.Sub(last) >= 5*time.Second {
			last = now
			logf(r.Log, "%s", progressLine(what, unit, done, total, now.Sub(start)))
		}
	}, func() {}
}

// progressLine is a load's progress in its unit: rows, or a dump's bytes
// read in MiB.
func progressLine(what, unit string, done, total int64, took time.Duration) string {
	pct := 100 * float64(done) / float64(max(total, 1))
	if unit == "bytes" {
		const mib = 1 << 20
		return fmt.Sprintf("%s: %.1f/%.1f MiB read (%.0f%%, %.1f MiB/s)", what, float64(done)/mib, float64(total)/mib, pct, float64(done)/mib/took.Seconds())
	}
	return fmt.Sprintf("%s %s: %d/%d (%.0f%%, %.0f %s/s)", what, unit, done, total, pct, float64(done)/took.Seconds(), unit)
}

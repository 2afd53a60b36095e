package run

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"shootout/internal/dialect"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

func (r *Runner) load(ctx context.Context, t target.Target, inst target.SQLInstance, w workload.Workload, ds workload.Dataset, f *result.File) error {
	d, db := inst.Dialect(), inst.DB()
	var claim *workload.Claim
	if !t.Managed() {
		// a server shootout did not start may hold someone's data: only
		// tables shootout created there are ever written
		c, err := workload.ClaimExternal(ctx, db, d, w, ds)
		if err != nil {
			return err
		}
		if c.Reuse {
			f.Load.Reused = true
			logf(r.Log, "dataset %s already loaded on %s: reused", ds.Name, t.Name())
			return nil
		}
		if err := c.Begin(ctx); err != nil {
			return err
		}
		claim = c
	}
	if sc, ok := w.(workload.SchemaChecker); ok {
		notes, err := sc.CheckSchema(d, ds)
		if err != nil {
			return fmt.Errorf("schema on %s: %w", t.Name(), err)
		}
		f.Load.Notes = notes
		for _, n := range notes {
			logf(r.Log, "%s", n)
		}
	}
	start := time.Now()
	schema := w.Schema(d, ds)
	if err := execAll(ctx, db, schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	total := ds.Rows
	if ds.LoadRows > 0 {
		total = ds.LoadRows
	}
	progress, finish := r.progress(total, "loading "+ds.Name+" rows")
	if hook := r.duringLoad; hook != nil {
		var once sync.Once
		show := progress
		progress = func(rows int64) {
			once.Do(func() { go hook(ctx, db) })
			if show != nil {
				show(rows)
			}
		}
	}
	loadCtx, progress, watch := watchLoad(ctx, r.loadStallLimit, progress)
	stats, err := w.Load(loadCtx, db, d, ds, progress)
	finish()
	if stall := watch.stop(); stall != nil {
		return fmt.Errorf("load dataset %s: %w; %s", ds.Name, stall, stallEvidence(ctx, inst.PIDs(), db, d))
	}
	if err != nil {
		return fmt.Errorf("load dataset %s: %w", ds.Name, err)
	}
	idx := time.Now()
	if hook := r.beforeStep; hook != nil {
		hook(ctx, "postload", db)
	}
	if err := r.afterLoad(ctx, inst.PIDs(), db, d, w.PostLoad(d, ds), idx.Sub(start)); err != nil {
		return fmt.Errorf("build indexes after load: %w", err)
	}
	if claim != nil {
		if err := claim.Done(ctx); err != nil {
			return err
		}
	}
	f.Load = result.Load{Seconds: time.Since(start).Seconds(), Rows: stats.Rows, Tables: stats.Tables,
		IndexS: time.Since(idx).Seconds(), SchemaDDL: len(schema), Notes: f.Load.Notes}
	if f.Load.Seconds > 0 {
		f.Load.RowsPerS = float64(stats.Rows) / f.Load.Seconds
	}
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
	logf(r.Log, "loaded %d rows in %.1f s (%.0f rows/s; indexes %.1f s)", stats.Rows, f.Load.Seconds, f.Load.RowsPerS, f.Load.IndexS)
	if len(perTable) > 0 {
		logf(r.Log, "  %s", strings.Join(perTable, ", "))
	}
	return nil
}

// progress shows a bar on a terminal, and a line every 5 s elsewhere (CI
// logs, files), so long loads are visible without filling a log with bars.
func (r *Runner) progress(total int64, what string) (workload.Progress, func()) {
	if r.Log == nil {
		return nil, func() {}
	}
	if f, ok := r.Log.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(r.Log), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("rows"),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
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
			logf(r.Log, "%s: %d/%d (%.0f%%, %.0f rows/s)", what, done, total, 100*float64(done)/float64(total), float64(done)/now.Sub(start).Seconds())
		}
	}, func() {}
}

func execAll(ctx context.Context, db *sql.DB, stmts []string) error {
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", firstLine(q), err)
		}
	}
	return nil
}

// loadNative fills a native server by the workload's steps on it (each
// protocol's fastest path: pipelined writes, multi-sets, batched inserts).
func (r *Runner) loadNative(ctx context.Context, c *cellRun, f *result.File) error {
	start := time.Now()
	progress, finish := r.progress(c.ds.Rows, "loading "+c.ds.Name+" rows")
	loadCtx, progress, watch := watchLoad(ctx, r.loadStallLimit, progress)
	stats, err := c.steps.Load(loadCtx, c.ds, progress)
	finish()
	if stall := watch.stop(); stall != nil {
		return fmt.Errorf("load dataset %s: %w; %s", c.ds.Name, stall, stallEvidence(ctx, c.inst.PIDs(), nil, dialect.Dialect{}))
	}
	if err != nil {
		return fmt.Errorf("load dataset %s: %w", c.ds.Name, err)
	}
	f.Load = result.Load{Seconds: time.Since(start).Seconds(), Rows: stats.Rows, Tables: stats.Tables, Reused: stats.Rows == 0 && c.ds.Rows > 0}
	if f.Load.Reused {
		logf(r.Log, "dataset %s already loaded on %s: reused", c.ds.Name, c.t.Name())
		return nil
	}
	if f.Load.Seconds > 0 {
		f.Load.RowsPerS = float64(stats.Rows) / f.Load.Seconds
	}
	logf(r.Log, "loaded %d rows in %.1f s (%.0f rows/s)", stats.Rows, f.Load.Seconds, f.Load.RowsPerS)
	return nil
}

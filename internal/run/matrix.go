package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/stats"
)

// Summary is what a matrix run did.
type Summary struct {
	Ran, Skipped int
	Failed       []*result.File
	Interrupted  bool
}

// Matrix runs every cell; a failed cell is recorded and the matrix goes on.
// Ctrl-C stops after recording the interrupted cell. With repeat: auto it
// runs the cells in rounds, a repeat of every cell still unsteady per
// round, so a slow drift of the machine spreads over all of them.
func (r *Runner) Matrix(ctx context.Context, res *plan.Resolved) (Summary, error) {
	Stamp(res)
	m := &matrix{Runner: r, res: res}
	if err := r.prepareDirs(); err != nil {
		return m.sum, err
	}
	if r.Resume {
		m.earlier = earlierCells(r.OutDir)
	}
	if res.AutoRepeat != nil {
		return m.sum, m.auto(ctx)
	}
	for i, cell := range res.Cells {
		if _, err := m.run(ctx, cell, fmt.Sprintf("%d/%d", i+1, len(res.Cells))); err != nil {
			return m.sum, err
		}
	}
	return m.sum, nil
}

// matrix is one Matrix call in progress.
type matrix struct {
	*Runner
	res     *plan.Resolved
	sum     Summary
	earlier map[string][]*result.File
}

// run runs one cell, or skips it on --resume, and returns its result
// (nil when skipped). An error ends the matrix: the result could not be
// written, or Ctrl-C.
func (m *matrix) run(ctx context.Context, cell result.Cell, pos string) (*result.File, error) {
	if m.Resume {
		skip, why := resumeDecision(m.earlier, cell)
		if skip {
			logf(m.Log, "[%s] %s: already done under the same conditions, skipped (--resume)", pos, cell.ID)
			m.sum.Skipped++
			return nil, nil
		}
		if why != "" {
			logf(m.Log, "[%s] %s: run again (--resume): %s", pos, cell.ID, why)
			if err := m.supersede(m.earlier[resumeKey(cell)], cell); err != nil {
				return nil, err
			}
		}
	}
	logf(m.Log, "\n[%s] %s: %s on %s, dataset %s, %d clients", pos, cell.ID, cell.Workload, strings.TrimSpace(cell.Target+" "+cell.Variant), cell.Dataset, cell.Clients)
	cellFn := m.Cell
	if m.fakeCell != nil {
		cellFn = m.fakeCell
	}
	f := cellFn(ctx, m.res, cell)
	if err := result.Write(m.OutDir, f); err != nil {
		return f, fmt.Errorf("write result of %s: %w", cell.ID, err)
	}
	m.sum.Ran++
	if !f.OK() {
		m.sum.Failed = append(m.sum.Failed, f)
		logf(m.Log, "cell %s FAILED: %s", cell.ID, f.Status)
	}
	if m.OnCell != nil {
		m.OnCell(f)
	}
	if m.badInput != nil {
		return f, m.badInput
	}
	if ctx.Err() != nil {
		m.sum.Interrupted = true
		return f, ctx.Err()
	}
	return f, nil
}

// auto is --repeat auto: rounds of one more repeat of every cell that is
// not yet steady, until each is steady or has run its maximum.
func (m *matrix) auto(ctx context.Context) error {
	a := m.res.AutoRepeat
	stopped := make([]bool, len(m.res.Cells))
	for round := 1; round <= a.Max; round++ {
		for gi, first := range m.res.Cells {
			if stopped[gi] {
				continue
			}
			cell := first
			cell.Repeat = round
			cell.ID = plan.CellID(cell)
			if _, err := m.run(ctx, cell, fmt.Sprintf("round %d, cell %d/%d", round, gi+1, len(m.res.Cells))); err != nil {
				return err
			}
		}
		for gi, first := range m.res.Cells {
			if stopped[gi] {
				continue
			}
			repeats := m.repeatsOf(first, round)
			why, stop := repeatStop(repeats, a, round)
			if !stop {
				logf(m.Log, "%s: %s: another repeat", first.GroupKey(), why)
				continue
			}
			stopped[gi] = true
			if len(repeats) == 0 {
				continue // no result could be read back: the log says why the writes failed
			}
			last := repeats[len(repeats)-1]
			last.RepeatStop = why
			if err := result.Write(m.OutDir, last); err != nil {
				return fmt.Errorf("write result of %s: %w", last.Cell.ID, err)
			}
			logf(m.Log, "%s: stopped repeating: %s", first.GroupKey(), why)
		}
	}
	return nil
}

// repeatsOf reads back the repeats 1..n of a cell that this run (or the
// one it resumes) wrote.
func (m *matrix) repeatsOf(first result.Cell, n int) []*result.File {
	var fs []*result.File
	for rep := 1; rep <= n; rep++ {
		c := first
		c.Repeat = rep
		if f, err := result.Read(result.Path(m.OutDir, plan.CellID(c))); err == nil {
			fs = append(fs, f)
		}
	}
	return fs
}

// repeatStop decides whether a cell has repeated enough and says why, or
// why not yet.
func repeatStop(repeats []*result.File, a *plan.AutoRepeat, round int) (why string, stop bool) {
	var xs []float64
	for _, f := range repeats {
		if !f.OK() {
			return fmt.Sprintf("repeat %d failed, so its spread cannot be judged", f.Cell.Repeat), true
		}
		if v, ok := mainFigure(f); ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return "no repeat measured its main figure", true
	}
	rsd := stats.RSD(xs)
	switch {
	case len(xs) >= a.Min && rsd < a.RSD:
		return fmt.Sprintf("rsd %.1f%% < %.1f%% after %d repeats", 100*rsd, 100*a.RSD, len(xs)), true
	case round >= a.Max:
		return fmt.Sprintf("maximum of %d repeats reached, rsd still %.1f%% (threshold %.1f%%)", a.Max, 100*rsd, 100*a.RSD), true
	case len(xs) < a.Min:
		return fmt.Sprintf("%d of at least %d repeats (the fewest that can reach p < %v)", len(xs), a.Min, a.Alpha), false
	}
	return fmt.Sprintf("rsd %.1f%% ≥ %.1f%% after %d repeats", 100*rsd, 100*a.RSD, len(xs)), false
}

// mainFigure is what --repeat auto steadies: throughput for a closed loop;
// at a fixed rate, where throughput is the rate, the trimmed mean time.
func mainFigure(f *result.File) (float64, bool) {
	if f.Cell.Rate == 0 {
		return f.Throughput.TPS, f.Throughput.Events > 0
	}
	var sum float64
	var n int64
	for _, o := range f.Ops {
		sum += o.SumMs
		n += o.Count
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

func (r *Runner) prepareDirs() error {
	if err := os.MkdirAll(r.OutDir, 0o755); err != nil {
		return fmt.Errorf("--out %s: cannot create it: %w", r.OutDir, err)
	}
	probe, err := os.CreateTemp(r.OutDir, ".probe-*")
	if err != nil {
		return fmt.Errorf("--out %s: not writable: %w", r.OutDir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	if r.WorkDir == "" {
		r.WorkDir = r.OutDir + "/work"
	}
	if err := os.MkdirAll(r.WorkDir, 0o755); err != nil {
		return fmt.Errorf("work directory %s: %w", r.WorkDir, err)
	}
	// servers that run as another user (postgres) must reach their dirs
	return os.Chmod(r.WorkDir, 0o755)
}

// resumeKey names a cell and its repeat without the hash of its conditions,
// so a cell measured under other conditions is found and the reason for
// running it again can be given.
func resumeKey(c result.Cell) string {
	return fmt.Sprintf("%s#%d", c.NameKey(), c.Repeat)
}

// earlierCells reads what an earlier run left in the results directory,
// by resumeKey; an unreadable or missing directory means nothing was done.
func earlierCells(dir string) map[string][]*result.File {
	files, _ := result.ReadDir(dir)
	m := map[string][]*result.File{}
	for _, f := range files {
		m[resumeKey(f.Cell)] = append(m[resumeKey(f.Cell)], f)
	}
	return m
}

// resumeDecision skips a cell only when it ran to its end under exactly the
// planned conditions; otherwise it says why the cell runs again.
func resumeDecision(earlier map[string][]*result.File, cell result.Cell) (skip bool, why string) {
	var latest *result.File
	for _, f := range earlier[resumeKey(cell)] {
		if f.Cell.ID == cell.ID && f.OK() && len(f.Cell.ConditionDiff(cell)) == 0 {
			return true, ""
		}
		if latest == nil || f.Ended.After(latest.Ended) {
			latest = f
		}
	}
	switch {
	case latest == nil:
		return false, ""
	case len(latest.Cell.ConditionDiff(cell)) > 0:
		return false, "its conditions changed: " + strings.Join(latest.Cell.ConditionDiff(cell), "; ")
	default:
		return false, "it did not succeed before (" + latest.Status + ")"
	}
}

// supersede moves the earlier results of a cell that runs again under other
// conditions to superseded/, out of the report's way but kept: nothing
// measured is deleted.
func (r *Runner) supersede(old []*result.File, cell result.Cell) error {
	dir := filepath.Join(r.OutDir, "superseded")
	for _, f := range old {
		// the server's log kept from an earlier attempt that died goes
		// aside too, or it would sit beside a result that succeeded
		if log := keptLogPath(r.OutDir, f.Cell.ID); fileExists(log) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("--resume: %w", err)
			}
			if err := os.Rename(log, filepath.Join(dir, filepath.Base(log))); err != nil {
				return fmt.Errorf("--resume: keep the earlier %s aside: %w", filepath.Base(log), err)
			}
		}
		if f.Cell.ID == cell.ID {
			continue // the new result overwrites it, as a failed cell's always was
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		if err := os.Rename(result.Path(r.OutDir, f.Cell.ID), filepath.Join(dir, f.Cell.ID+".json")); err != nil {
			return fmt.Errorf("--resume: keep the earlier %s aside: %w", f.Cell.ID, err)
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

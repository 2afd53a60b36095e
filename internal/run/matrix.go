package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"shootout/internal/plan"
	"shootout/internal/result"
)

// Summary is what a matrix run did.
type Summary struct {
	Ran, Skipped int
	Failed       []*result.File
	Interrupted  bool
}

// Matrix runs every cell; a failed cell is recorded and the matrix goes on.
// Ctrl-C stops after recording the interrupted cell.
func (r *Runner) Matrix(ctx context.Context, res *plan.Resolved) (Summary, error) {
	var sum Summary
	if err := r.prepareDirs(); err != nil {
		return sum, err
	}
	var earlier map[string][]*result.File
	if r.Resume {
		earlier = earlierCells(r.OutDir)
	}
	for i, cell := range res.Cells {
		if r.Resume {
			skip, why := resumeDecision(earlier, cell)
			if skip {
				logf(r.Log, "[%d/%d] %s: already done under the same conditions, skipped (--resume)", i+1, len(res.Cells), cell.ID)
				sum.Skipped++
				continue
			}
			if why != "" {
				logf(r.Log, "[%d/%d] %s: run again (--resume): %s", i+1, len(res.Cells), cell.ID, why)
				if err := r.supersede(earlier[resumeKey(cell)], cell); err != nil {
					return sum, err
				}
			}
		}
		logf(r.Log, "\n[%d/%d] %s: %s on %s, dataset %s, %d clients", i+1, len(res.Cells), cell.ID, cell.Workload, cell.Target, cell.Dataset, cell.Clients)
		f := r.Cell(ctx, res, cell)
		if err := result.Write(r.OutDir, f); err != nil {
			return sum, fmt.Errorf("write result of %s: %w", cell.ID, err)
		}
		sum.Ran++
		if !f.OK() {
			sum.Failed = append(sum.Failed, f)
			logf(r.Log, "cell %s FAILED: %s", cell.ID, f.Status)
		}
		if r.OnCell != nil {
			r.OnCell(f)
		}
		if ctx.Err() != nil {
			sum.Interrupted = true
			return sum, ctx.Err()
		}
	}
	return sum, nil
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
	for _, f := range old {
		if f.Cell.ID == cell.ID {
			continue // the new result overwrites it, as a failed cell's always was
		}
		dir := filepath.Join(r.OutDir, "superseded")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		if err := os.Rename(result.Path(r.OutDir, f.Cell.ID), filepath.Join(dir, f.Cell.ID+".json")); err != nil {
			return fmt.Errorf("--resume: keep the earlier %s aside: %w", f.Cell.ID, err)
		}
	}
	return nil
}

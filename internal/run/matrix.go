package run

import (
	"context"
	"fmt"
	"os"

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
	for i, cell := range res.Cells {
		if r.Resume && result.Done(r.OutDir, cell.ID) {
			logf(r.Log, "[%d/%d] %s: already done, skipped (--resume)", i+1, len(res.Cells), cell.ID)
			sum.Skipped++
			continue
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

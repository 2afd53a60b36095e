package run

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// defaultLoadStallLimit is how long a load may go without a batch landing
// before its server is taken to have stopped answering. A batch takes
// seconds at most on every server here; the limit also stretches to ten
// times the longest wait between two batches that did land.
const defaultLoadStallLimit = 5 * time.Minute

// errLoadStalled is the cause a stalled load is cancelled with.
var errLoadStalled = errors.New("the server stopped answering during the load")

// loadWatch cancels a load whose progress stops: without it a server that
// stops answering holds the cell, and the study, for ever.
type loadWatch struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	lastAt  atomic.Int64 // UnixNano of the last batch (or the start)
	longest atomic.Int64 // the longest wait between batches, ns
	limit   atomic.Int64 // the stall limit, ns
	done    chan struct{}
}

// watchLoad returns the context the load runs under and the progress
// function that feeds the watch; stop ends the watch.
func watchLoad(ctx context.Context, limit time.Duration, progress workload.Progress) (context.Context, workload.Progress, *loadWatch) {
	if limit <= 0 {
		limit = defaultLoadStallLimit
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &loadWatch{ctx: ctx, cancel: cancel, done: make(chan struct{})}
	w.lastAt.Store(time.Now().UnixNano())
	w.limit.Store(int64(limit))
	tick := min(time.Second, limit/10)
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-ctx.Done():
				return
			case now := <-t.C:
				quiet := now.Sub(time.Unix(0, w.lastAt.Load()))
				allowed := max(time.Duration(w.limit.Load()), 10*time.Duration(w.longest.Load()))
				if quiet > allowed {
					unit := time.Millisecond
					if quiet >= 10*time.Second {
						unit = time.Second
					}
					cancel(fmt.Errorf("%w: no rows landed for %v", errLoadStalled, quiet.Round(unit)))
					return
				}
			}
		}
	}()
	fed := func(rows int64) {
		now := time.Now().UnixNano()
		if gap := now - w.lastAt.Swap(now); gap > w.longest.Load() {
			w.longest.Store(gap)
		}
		if progress != nil {
			progress(rows)
		}
	}
	return ctx, fed, w
}

// arm starts the watch afresh with limit (the default when 0), as if a
// batch had just landed.
func (w *loadWatch) arm(limit time.Duration) {
	if limit <= 0 {
		limit = defaultLoadStallLimit
	}
	w.limit.Store(int64(limit))
	w.longest.Store(0)
	w.lastAt.Store(time.Now().UnixNano())
}

// stop ends the watch; it returns the stall, if that is what ended the
// load.
func (w *loadWatch) stop() error {
	close(w.done)
	err := context.Cause(w.ctx)
	w.cancel(nil)
	if errors.Is(err, errLoadStalled) {
		return err
	}
	return nil
}

// defaultStepLimit is the least time a step that reports no progress —
// the index builds after a load, the settling (flushes, compaction,
// VACUUM), the write-back after the run — gets before its server is
// taken to have stopped answering; the bound is on the whole step: at
// least this, or ten times what the load took (an index build here takes
// a fraction of its load: 8 s after 37 s for InnoDB's 2.5 M rows, 14 s
// for MyRocks').
const defaultStepLimit = 5 * time.Minute

// stepLimit is the bound of a step after a load that took loadTook.
func (r *Runner) stepLimit(loadTook time.Duration) (limit, least time.Duration) {
	least = r.stepLimitLeast
	if least <= 0 {
		least = defaultStepLimit
	}
	return max(least, 10*loadTook), least
}

// overdue is a step that went past its bound.
type overdue struct {
	waited   time.Duration
	evidence string // what the server was doing, while the step still waited
}

// boundStep runs step under limit and returns its error; past the limit
// it reads what the server is doing while the step still waits
// (cancelling first would end the very session that shows it), then
// cancels the step's context and returns without waiting for it: a
// server that stopped answering may not let go.
func boundStep(ctx context.Context, limit time.Duration, pids []int, db *sql.DB, d dialect.Dialect, step func(context.Context) error) (*overdue, error) {
	bounded, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	started := time.Now()
	go func() { done <- step(bounded) }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-done:
		return nil, err
	case <-timer.C:
	}
	waited := time.Since(started)
	return &overdue{waited: waited, evidence: stallEvidence(ctx, pids, db, d)}, nil
}

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
				allowed := max(limit, 10*time.Duration(w.longest.Load()))
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

// defaultAfterLoadLimit is the least time the statements that follow a
// load (index builds, sequences moved past the loaded ids) get before
// their server is taken to have stopped answering. They report no
// progress to watch, so the bound is on their whole: at least this, or
// ten times what the load took (an index build here takes a fraction of
// its load: 8 s after 37 s for InnoDB's 2.5 M rows, 14 s for MyRocks').
const defaultAfterLoadLimit = 5 * time.Minute

// afterLoad runs stmts under that bound; past it the statement in flight
// is abandoned, and the error says what the server was doing while it
// still was (cancelling first would end the very session it names).
func (r *Runner) afterLoad(ctx context.Context, pids []int, db *sql.DB, d dialect.Dialect, stmts []string, loadTook time.Duration) error {
	least := r.afterLoadLimit
	if least <= 0 {
		least = defaultAfterLoadLimit
	}
	limit := max(least, 10*loadTook)
	bounded, cancel := context.WithCancel(ctx)
	defer cancel()
	var current atomic.Int64
	done := make(chan error, 1)
	started := time.Now()
	go func() {
		for i, q := range stmts {
			current.Store(int64(i))
			if _, err := db.ExecContext(bounded, q); err != nil {
				done <- fmt.Errorf("%s: %w", firstLine(q), err)
				return
			}
		}
		done <- nil
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	waited := time.Since(started)
	evidence := stallEvidence(ctx, pids, db, d)
	// the driver gives the statement up by closing its connection; it is
	// not waited for, as a server that stopped answering may not let go
	cancel()
	return fmt.Errorf("the server stopped answering after the load: %q went unanswered for %v (the bound: ten times the load's %v, at least %v); %s",
		firstLine(stmts[current.Load()]), waited.Round(time.Second), loadTook.Round(100*time.Millisecond), least, evidence)
}

package run

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

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

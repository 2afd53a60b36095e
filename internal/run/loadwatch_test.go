package run

import (
	"context"
	"errors"
	"testing"
	"time"

	"shootout/internal/dialect"
)

var dialectNone dialect.Dialect

// The load's stall limit stretches to ten times the longest wait between
// batches: a load whose batches come slowly is not cut short, and one
// whose batches stop is.
func TestLoadWatchStretchesToTheSlowestBatch(t *testing.T) {
	ctx, progress, w := watchLoad(context.Background(), 50*time.Millisecond, nil)
	for i := 0; i < 5; i++ {
		time.Sleep(40 * time.Millisecond) // within 50 ms, each
		progress(1)
	}
	time.Sleep(200 * time.Millisecond) // past 50 ms, within 10 × 40
	if ctx.Err() != nil {
		t.Fatalf("cancelled 200 ms after batches 40 ms apart: %v", context.Cause(ctx))
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a load whose batches stopped was never cancelled")
	}
	if err := w.stop(); !errors.Is(err, errLoadStalled) {
		t.Fatalf("stop() = %v, want the stall", err)
	}
}

func TestLoadWatchStopsQuietly(t *testing.T) {
	ctx, progress, w := watchLoad(context.Background(), time.Minute, nil)
	progress(10)
	if err := w.stop(); err != nil {
		t.Fatalf("stop() after a load that ended = %v", err)
	}
	if ctx.Err() == nil {
		t.Fatal("the watch's context outlived it")
	}
}

// A step past its bound is given up without waiting for it, and its
// context is cancelled; one in time returns its own error; the bound
// stretches to ten times the load.
func TestBoundStepGivesUpAtItsBound(t *testing.T) {
	cancelled := make(chan struct{})
	start := time.Now()
	late, err := boundStep(context.Background(), 100*time.Millisecond, nil, nil, dialectNone, func(ctx context.Context) error {
		<-ctx.Done()
		close(cancelled)
		time.Sleep(time.Hour) // a step that does not let go
		return nil
	})
	if late == nil || err != nil {
		t.Fatalf("a step that never ended: overdue %v, err %v", late, err)
	}
	if took := time.Since(start); took > 2*time.Second || late.waited < 100*time.Millisecond {
		t.Fatalf("given up after %v (waited %v), the bound was 100 ms", took, late.waited)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the overdue step's context was never cancelled")
	}

	own := errors.New("its own error")
	late, err = boundStep(context.Background(), time.Minute, nil, nil, dialectNone, func(context.Context) error { return own })
	if late != nil || err != own {
		t.Fatalf("a step that failed in time: overdue %v, err %v", late, err)
	}

	r := &Runner{stepLimitLeast: time.Second}
	if limit, least := r.stepLimit(3 * time.Second); limit != 30*time.Second || least != time.Second {
		t.Fatalf("after a 3-s load: bound %v (least %v), want 30s (1s)", limit, least)
	}
	if limit, _ := (&Runner{}).stepLimit(time.Second); limit != defaultStepLimit {
		t.Fatalf("after a 1-s load: bound %v, want the default %v", limit, defaultStepLimit)
	}
}

package run

import (
	"context"
	"errors"
	"testing"
	"time"
)

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

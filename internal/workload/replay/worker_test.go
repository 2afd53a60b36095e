package replay

import (
	"context"
	"testing"
	"time"
)

// timing=original holds each command until its place on the captured
// timeline, compressed by speed, and a command already past its place
// goes at once, counted as how far its session fell behind.
func TestOriginalTimingKeepsTheTimelineAtItsSpeed(t *testing.T) {
	w, err := New(map[string]string{"capture": file(t, header+open1+query1+end), "speed": "4"})
	if err != nil {
		t.Fatal(err)
	}
	rw := w.(*Workload)
	wk := &worker{w: rw}
	start := time.Now()
	rw.start = start
	if !wk.wait(context.Background(), &step{at: int64(200 * time.Millisecond)}, time.Time{}) {
		t.Fatal("the wait gave up")
	}
	// 200 ms on the captured timeline at speed 4: 50 ms after the start
	if took := time.Since(start); took < 50*time.Millisecond || took > 150*time.Millisecond {
		t.Errorf("sent %v after the start, want 50 ms (200 ms at speed 4)", took)
	}
	if wk.lag > 5*time.Millisecond {
		t.Errorf("behind by %v after a command sent on time", wk.lag)
	}
	wk.wait(context.Background(), &step{at: int64(20 * time.Millisecond)}, time.Time{})
	if wk.lag < 40*time.Millisecond {
		t.Errorf("behind by %v for a command due 5 ms after the start and sent after 50", wk.lag)
	}
	// a deadline before the command's place: the wait gives up, nothing sent
	if wk.wait(context.Background(), &step{at: int64(10 * time.Second)}, time.Now().Add(10*time.Millisecond)) {
		t.Error("a command due after the window's end was let through")
	}
}

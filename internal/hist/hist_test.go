package hist

import (
	"math"
	"testing"
	"time"
)

func TestSnapshotExactMeanAndPercentiles(t *testing.T) {
	h := New()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	s := h.Snapshot()
	if s.Count != 1000 {
		t.Fatalf("count = %d, want 1000", s.Count)
	}
	if math.Abs(s.MeanMs-500.5) > 1e-9 {
		t.Errorf("mean = %v, want exactly 500.5", s.MeanMs)
	}
	if s.MinMs != 1 || s.MaxMs != 1000 {
		t.Errorf("min/max = %v/%v, want 1/1000", s.MinMs, s.MaxMs)
	}
	for _, c := range []struct{ got, want float64 }{{s.P50Ms, 500}, {s.P95Ms, 950}, {s.P99Ms, 990}} {
		if math.Abs(c.got-c.want)/c.want > 0.01 {
			t.Errorf("percentile %v, want %v within 1%%", c.got, c.want)
		}
	}
}

func TestMergeEqualsRecordingIntoOne(t *testing.T) {
	a, b, all := New(), New(), New()
	for i := 0; i < 500; i++ {
		d := time.Duration(i*i) * time.Microsecond
		if i%2 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
		all.Record(d)
	}
	m := New()
	m.Merge(a)
	m.Merge(b)
	if m.Snapshot() != all.Snapshot() {
		t.Fatalf("merged %+v != direct %+v", m.Snapshot(), all.Snapshot())
	}
}

func TestMergeEmptyKeepsMin(t *testing.T) {
	h := New()
	h.Record(5 * time.Millisecond)
	h.Merge(New())
	if got := h.Snapshot().MinMs; got != 5 {
		t.Fatalf("min after merging empty = %v, want 5", got)
	}
	e := New()
	e.Merge(h)
	if got := e.Snapshot().MinMs; got != 5 {
		t.Fatalf("min of empty merged with h = %v, want 5", got)
	}
}

func TestOutOfRangeIsClamped(t *testing.T) {
	h := New()
	h.Record(0)
	h.Record(2 * time.Hour)
	if h.Count() != 2 {
		t.Fatalf("count = %d, want 2", h.Count())
	}
	if h.Snapshot().MaxMs != float64(2*time.Hour/time.Millisecond) {
		t.Fatalf("max should stay exact, got %v", h.Snapshot().MaxMs)
	}
}

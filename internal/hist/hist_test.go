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

// A latency of a few microseconds keeps its fractions: cut to whole
// microseconds, 3.9 µs read as 3 (23% low).
func TestMicrosecondLatenciesKeepTheirFractions(t *testing.T) {
	h := New()
	for i := 0; i < 1000; i++ {
		h.Record(3900 * time.Nanosecond)
	}
	for _, p := range []float64{50, 95, 99} {
		if got := h.Quantile(p); math.Abs(got-0.0039)/0.0039 > 0.01 {
			t.Errorf("p%v of 3.9 µs = %v ms, want 0.0039 within 1%%", p, got)
		}
	}
	if s := h.Snapshot(); math.Abs(s.P99Ms-0.0039)/0.0039 > 0.01 {
		t.Errorf("snapshot p99 = %v ms, want 0.0039 within 1%%", s.P99Ms)
	}
}

// The driver keeps a histogram per operation per time slice: each must
// stay small, and recording must not allocate (it runs once per operation
// on every client).
func TestAHistogramIsSmallAndRecordingAllocatesNothing(t *testing.T) {
	h := New()
	if b := h.h.ByteSize(); b > 64<<10 {
		t.Errorf("a histogram takes %d bytes, more than 64 KiB", b)
	}
	d := time.Duration(0)
	if a := testing.AllocsPerRun(1000, func() { d += 997; h.Record(d) }); a != 0 {
		t.Errorf("Record allocates %v times per call", a)
	}
}

package hist

import (
	"testing"
	"time"
)

// Two agents' latencies, one fast and one slow, travel in the wire form
// and merge into exactly the histogram of all of them; the maximum or
// the mean of the agents' percentiles, what other tools report, would
// not.
func TestWireMergeIsExact(t *testing.T) {
	all, fast, slow := New(), New(), New()
	for i := 1; i <= 3000; i++ {
		d := time.Duration(i) * 7 * time.Microsecond
		all.Record(d)
		if i%3 == 0 {
			slow.Record(d * 5)
			all.Record(d * 5)
		} else {
			fast.Record(d)
		}
	}
	// the fast one kept also i%3==0's d: all has 3000 + 1000 values
	for i := 3; i <= 3000; i += 3 {
		fast.Record(time.Duration(i) * 7 * time.Microsecond)
	}
	merged := New()
	for _, h := range []*Histogram{fast, slow} {
		w, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(w)
		if err != nil {
			t.Fatal(err)
		}
		merged.Merge(back)
	}
	want, got := all.Snapshot(), merged.Snapshot()
	if got != want {
		t.Fatalf("merged %+v\nwant   %+v", got, want)
	}
	a, b := fast.Snapshot(), slow.Snapshot()
	for _, p := range []struct {
		name      string
		ref, x, y float64
	}{{"p50", want.P50Ms, a.P50Ms, b.P50Ms}, {"p95", want.P95Ms, a.P95Ms, b.P95Ms}, {"p99", want.P99Ms, a.P99Ms, b.P99Ms}} {
		if mx := max(p.x, p.y); mx == p.ref {
			t.Errorf("%s: the maximum of the agents' %v equals the merged one: the test cannot tell them apart", p.name, mx)
		}
		if mean := (p.x + p.y) / 2; mean == p.ref {
			t.Errorf("%s: the mean of the agents' %v equals the merged one", p.name, mean)
		}
	}
}

func TestDecodeEmpty(t *testing.T) {
	h, err := Decode(Wire{})
	if err != nil || h.Count() != 0 {
		t.Fatalf("Decode(zero) = %v, %v; want an empty histogram", h.Count(), err)
	}
}

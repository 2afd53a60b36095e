// Package hist records operation latencies in HDR histograms and merges them.
//
// A Histogram is not safe for concurrent use: each client goroutine owns its
// own and the driver merges them, so the hot path takes no shared lock.
package hist

import (
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// Values are nanoseconds: whole microseconds read a 3.9-µs Redis GET
	// as 3, 25% low. An hour at two significant digits is 37 KB a
	// histogram (26 KB in µs); three would be 270 KB, too much for the
	// driver, which keeps one per operation per time slice (100 per run up
	// to 100 s, one per second beyond) to trim by. Sysbench's own histogram
	// is coarser (1024 log buckets over 1 µs..100 s).
	lowestNs  = 1
	highestNs = int64(time.Hour)
	sigFigs   = 2
)

// Histogram is a latency histogram with an exact sum and extremes.
type Histogram struct {
	h     *hdr.Histogram
	sumNs int64
	minNs int64
	maxNs int64
}

// New returns an empty histogram.
func New() *Histogram {
	return &Histogram{h: hdr.New(lowestNs, highestNs, sigFigs)}
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	ns := int64(d)
	if ns < 0 {
		ns = 0
	}
	v := min(max(ns, lowestNs), highestNs)
	_ = h.h.RecordValue(v) // cannot fail: the value was clamped into range
	if h.h.TotalCount() == 1 || ns < h.minNs {
		h.minNs = ns
	}
	if ns > h.maxNs {
		h.maxNs = ns
	}
	h.sumNs += ns
}

// Count is the number of recorded latencies; a nil histogram is empty.
func (h *Histogram) Count() int64 {
	if h == nil {
		return 0
	}
	return h.h.TotalCount()
}

// Merge adds every value of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.Count() == 0 {
		return
	}
	if h.Count() == 0 || o.minNs < h.minNs {
		h.minNs = o.minNs
	}
	if o.maxNs > h.maxNs {
		h.maxNs = o.maxNs
	}
	h.sumNs += o.sumNs
	h.h.Merge(o.h)
}

// Reset empties h so it can be reused without allocating.
func (h *Histogram) Reset() {
	h.h.Reset()
	h.sumNs, h.minNs, h.maxNs = 0, 0, 0
}

// Snapshot is the summary of a histogram in milliseconds.
type Snapshot struct {
	Count  int64   `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	MinMs  float64 `json:"min_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P95Ms  float64 `json:"p95_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
	SumMs  float64 `json:"sum_ms"`
}

// Snapshot summarises h. Mean, min, max and sum are exact; percentiles carry
// the histogram's 1% precision.
func (h *Histogram) Snapshot() Snapshot {
	n := h.Count()
	if n == 0 {
		return Snapshot{}
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	q := func(p float64) float64 { return float64(h.h.ValueAtQuantile(p)) / 1e6 }
	return Snapshot{
		Count:  n,
		MeanMs: ms(h.sumNs) / float64(n),
		MinMs:  ms(h.minNs),
		P50Ms:  q(50),
		P95Ms:  q(95),
		P99Ms:  q(99),
		MaxMs:  ms(h.maxNs),
		SumMs:  ms(h.sumNs),
	}
}

// Quantile returns the p-th percentile (0..100) in milliseconds.
func (h *Histogram) Quantile(p float64) float64 {
	if h.Count() == 0 {
		return 0
	}
	return float64(h.h.ValueAtQuantile(p)) / 1e6
}

// Wire is a histogram as it travels between processes: the HDR counts in
// HdrHistogram's standard V2 compressed encoding, with the exact sum and
// extremes the encoding does not carry.
type Wire struct {
	HDR   []byte `json:"hdr"`
	SumNs int64  `json:"sum_ns"`
	MinNs int64  `json:"min_ns"`
	MaxNs int64  `json:"max_ns"`
}

// Encode is h in its wire form; a nil or empty histogram is a zero Wire.
func (h *Histogram) Encode() (Wire, error) {
	if h.Count() == 0 {
		return Wire{}, nil
	}
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return Wire{}, err
	}
	return Wire{HDR: b, SumNs: h.sumNs, MinNs: h.minNs, MaxNs: h.maxNs}, nil
}

// Decode is the histogram w encodes; a zero Wire is an empty histogram.
func Decode(w Wire) (*Histogram, error) {
	h := New()
	if len(w.HDR) == 0 {
		return h, nil
	}
	d, err := hdr.Decode(w.HDR)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	h.h.Merge(d)
	h.sumNs, h.minNs, h.maxNs = w.SumNs, w.MinNs, w.MaxNs
	return h, nil
}

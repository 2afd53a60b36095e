package driver

import (
	"fmt"
	"io"
	"sort"
	"time"

	"shootout/internal/hist"
	"shootout/internal/workload"
)

// Interval is one interval report, as sysbench prints every --report-interval.
type Interval struct {
	AtS       float64 `json:"at_s"`
	Threads   int     `json:"threads"`
	TPS       float64 `json:"tps"`
	QPS       float64 `json:"qps"`
	ReadsPS   float64 `json:"reads_ps"`
	WritesPS  float64 `json:"writes_ps"`
	OtherPS   float64 `json:"other_ps"`
	P95Ms     float64 `json:"p95_ms"`
	ErrPS     float64 `json:"err_ps"`
	ReconnPS  float64 `json:"reconn_ps"`
	MeanLatMs float64 `json:"mean_ms"`
}

// Line renders the interval in sysbench 1.0's shape.
func (iv Interval) Line() string {
	return fmt.Sprintf("[ %.0fs ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,95%%): %.2f err/s: %.2f reconn/s: %.2f",
		iv.AtS, iv.Threads, iv.TPS, iv.QPS, iv.ReadsPS, iv.WritesPS, iv.OtherPS, iv.P95Ms, iv.ErrPS, iv.ReconnPS)
}

func summariseInterval(ss []slice, threads int, from, to time.Duration) Interval {
	var c counts
	all := hist.New()
	for _, s := range ss {
		c.add(s.counts)
		all.Merge(s.done)
	}
	at := to
	span := to - from
	secs := span.Seconds()
	if secs <= 0 {
		secs = 1
	}
	return Interval{
		AtS: at.Round(time.Second).Seconds(), Threads: threads,
		TPS: float64(c.events) / secs, QPS: float64(c.reads+c.writes+c.other) / secs,
		ReadsPS: float64(c.reads) / secs, WritesPS: float64(c.writes) / secs, OtherPS: float64(c.other) / secs,
		P95Ms: all.Quantile(95), ErrPS: float64(c.errors) / secs, ReconnPS: float64(c.reconnects) / secs,
		MeanLatMs: all.Snapshot().MeanMs,
	}
}

// OpStats is one operation's latency, trimmed and untrimmed.
type OpStats struct {
	hist.Snapshot
	Errors      int64         `json:"errors"`
	Untrimmed   hist.Snapshot `json:"untrimmed"`
	TrimmedHead int64         `json:"trimmed_head"`
	TrimmedTail int64         `json:"trimmed_tail"`
}

// Result is everything the driver measured in one run.
type Result struct {
	OpNames []string
	Clients int
	Elapsed time.Duration
	// Started is when the measured window began (the clock Elapsed
	// counts from), so a reader outside can measure the same window.
	Started         time.Time
	Ops             map[string]OpStats
	All             hist.Snapshot // every operation, untrimmed: sysbench's "Latency"
	Events          int64
	Reads           int64
	Writes          int64
	Other           int64
	Errors          int64
	ByClass         map[string]int64
	Retries         int64
	FailedOps       int64
	Reconnects      int64
	Intervals       []Interval
	PerClientEvents []int64
	PerClientBusy   []time.Duration
	// Counters are the workload's committed-work counters summed over clients.
	Counters map[string]int64
	// Statements are the per-statement timings of workers that keep them,
	// largest total first.
	Statements []workload.StatementStat
	// Fatal is why the run stopped early, empty when it ran to its end.
	Fatal string
	// ScheduleLag is the furthest behind its schedule the client fell for
	// want of CPU: at a fixed rate, the latest a client that waited for an
	// operation's slot woke after it. An operation due while every client
	// was busy starts late too, but that is the server's time (or the
	// client's CPU, which its CPU figure tells), and a closed loop has no
	// schedule: zero there. Late collector ticks were counted here once:
	// each tick the ticker dropped while the collector was off CPU added a
	// slice length for good, seconds on a loaded machine in a closed loop.
	ScheduleLag time.Duration
	pauses      pauseWatch
	// what the result was made of, for an agent to send its owner
	slices  []slice
	byStart [][]*hist.Histogram
}

// LongestPause is the longest stretch in which clients waited and no
// operation finished, and when it began (from the run's start); zero when
// every tick saw an operation finish.
func (r *Result) LongestPause() (length, from time.Duration) {
	return r.pauses.longest, r.pauses.from
}

// TPS is events per second over the whole run, as sysbench computes it.
func (r *Result) TPS() float64 { return perSec(r.Events, r.Elapsed) }

// QPS is queries per second over the whole run.
func (r *Result) QPS() float64 { return perSec(r.Reads+r.Writes+r.Other, r.Elapsed) }

func perSec(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// fill aggregates slices, and the latencies byStart (per time slice an
// operation started in, per op), dropping the first and last trim
// fraction of each operation's count at slice granularity (never more
// than trim). Trimming goes by start: at a fixed rate by when an
// operation was due, so one due inside the kept window stays however late
// it ended (by end, a stall near the run's end left with the tail, and a
// warm-up operation that stalled into the middle stayed); in a closed
// loop start and end order hardly differ.
func (r *Result) fill(slices []slice, byStart [][]*hist.Histogram, trim float64) {
	var total counts
	all := hist.New()
	for _, s := range slices {
		total.add(s.counts)
	}
	for _, hs := range byStart {
		for _, h := range hs {
			all.Merge(h)
		}
	}
	r.Events, r.Reads, r.Writes, r.Other = total.events, total.reads, total.writes, total.other
	r.Errors, r.Retries, r.FailedOps, r.Reconnects = total.errors, total.retries, total.failedOps, total.reconnects
	r.ByClass = map[string]int64{}
	for k, v := range total.byClass {
		r.ByClass[string(k)] = v
	}
	r.All = all.Snapshot()
	r.Ops = map[string]OpStats{}
	for op, name := range r.OpNames {
		per := make([]*hist.Histogram, len(byStart))
		var n int64
		for i, hs := range byStart {
			per[i] = hs[op]
			n += per[i].Count()
		}
		st := trimmed(per, n, trim)
		st.Errors = total.byOp[op]
		r.Ops[name] = st
	}
}

func trimmed(per []*hist.Histogram, n int64, trim float64) OpStats {
	limit := int64(float64(n) * trim)
	lo, hi := 0, len(per)
	var head, tail int64
	for lo < hi && head+per[lo].Count() <= limit {
		head += per[lo].Count()
		lo++
	}
	for hi > lo && tail+per[hi-1].Count() <= limit {
		tail += per[hi-1].Count()
		hi--
	}
	kept, untrimmed := hist.New(), hist.New()
	for i, h := range per {
		untrimmed.Merge(h)
		if i >= lo && i < hi {
			kept.Merge(h)
		}
	}
	return OpStats{Snapshot: kept.Snapshot(), Untrimmed: untrimmed.Snapshot(), TrimmedHead: head, TrimmedTail: tail}
}

// Fairness is the mean and standard deviation of events and busy seconds
// over clients: sysbench's "Threads fairness".
func (r *Result) Fairness() (evAvg, evSD, timeAvg, timeSD float64) {
	ev := make([]float64, len(r.PerClientEvents))
	for i, e := range r.PerClientEvents {
		ev[i] = float64(e)
	}
	bt := make([]float64, len(r.PerClientBusy))
	for i, b := range r.PerClientBusy {
		bt[i] = b.Seconds()
	}
	evAvg, evSD = stddev(ev)
	timeAvg, timeSD = stddev(bt)
	return
}

// WriteSummary prints the final report in sysbench's layout, followed by the
// per-operation trimmed figures and the error classes.
func (r *Result) WriteSummary(w io.Writer) {
	secs := r.Elapsed.Seconds()
	ps := func(n int64) float64 { return perSec(n, r.Elapsed) }
	fmt.Fprintf(w, "SQL statistics:\n    queries performed:\n")
	fmt.Fprintf(w, "        read:                            %d\n", r.Reads)
	fmt.Fprintf(w, "        write:                           %d\n", r.Writes)
	fmt.Fprintf(w, "        other:                           %d\n", r.Other)
	fmt.Fprintf(w, "        total:                           %d\n", r.Reads+r.Writes+r.Other)
	fmt.Fprintf(w, "    transactions:                        %-6d (%.2f per sec.)\n", r.Events, ps(r.Events))
	fmt.Fprintf(w, "    queries:                             %-6d (%.2f per sec.)\n", r.Reads+r.Writes+r.Other, r.QPS())
	fmt.Fprintf(w, "    ignored errors:                      %-6d (%.2f per sec.)\n", r.Errors, ps(r.Errors))
	fmt.Fprintf(w, "    reconnects:                          %-6d (%.2f per sec.)\n\n", r.Reconnects, ps(r.Reconnects))
	fmt.Fprintf(w, "General statistics:\n")
	fmt.Fprintf(w, "    total time:                          %.4fs\n", secs)
	fmt.Fprintf(w, "    total number of events:              %d\n\n", r.Events)
	fmt.Fprintf(w, "Latency (ms):\n")
	fmt.Fprintf(w, "         min:                                    %8.2f\n", r.All.MinMs)
	fmt.Fprintf(w, "         avg:                                    %8.2f\n", r.All.MeanMs)
	fmt.Fprintf(w, "         max:                                    %8.2f\n", r.All.MaxMs)
	fmt.Fprintf(w, "         95th percentile:                        %8.2f\n", r.All.P95Ms)
	fmt.Fprintf(w, "         sum:                                    %8.2f\n\n", r.All.SumMs)
	evAvg, evSD, tAvg, tSD := r.Fairness()
	fmt.Fprintf(w, "Threads fairness:\n")
	fmt.Fprintf(w, "    events (avg/stddev):           %.4f/%.2f\n", evAvg, evSD)
	fmt.Fprintf(w, "    execution time (avg/stddev):   %.4f/%.2f\n\n", tAvg, tSD)
	fmt.Fprintf(w, "Operations (trimmed, ms):\n")
	for _, name := range r.OpNames {
		s := r.Ops[name]
		// the trim on a line of its own: with it, the line passed 100
		// columns on an ordinary cell
		fmt.Fprintf(w, "    %-14s count %-8d mean %.3f  p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n",
			name, s.Count, s.MeanMs, s.P50Ms, s.P95Ms, s.P99Ms, s.MaxMs)
		fmt.Fprintf(w, "    %-14s (trimmed: %d dropped at the head, %d at the tail)\n", "", s.TrimmedHead, s.TrimmedTail)
	}
	if len(r.ByClass) > 0 {
		var keys []string
		for k := range r.ByClass {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "Errors by class:")
		for _, k := range keys {
			fmt.Fprintf(w, " %s=%d", k, r.ByClass[k])
		}
		fmt.Fprintf(w, " (retries %d, operations given up %d)\n", r.Retries, r.FailedOps)
	}
}

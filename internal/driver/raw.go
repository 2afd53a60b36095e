package driver

import (
	"errors"
	"strings"
	"sync"
	"time"

	"shootout/internal/errclass"
	"shootout/internal/hist"
	"shootout/internal/workload"
)

// Raw is one agent's run as it travels to the cell's owner: every time
// slice's counts and histograms, not their summary, so that Merge adds
// the agents' operations up as if one process had run them all.
type Raw struct {
	StartedUnixNs   int64                    `json:"started_unix_ns"`
	ElapsedNs       int64                    `json:"elapsed_ns"`
	Slices          []RawSlice               `json:"slices"`
	ByStart         [][]hist.Wire            `json:"by_start"`
	PerClientEvents []int64                  `json:"per_client_events"`
	PerClientBusyNs []int64                  `json:"per_client_busy_ns"`
	Counters        map[string]int64         `json:"counters"`
	Statements      []workload.StatementStat `json:"statements"`
	ScheduleLagNs   int64                    `json:"schedule_lag_ns"`
	Fatal           string                   `json:"fatal"`
	// Stalled is whether Fatal is a stall (ErrStalled): the owner takes
	// the stall's evidence and bounds its write-back on it.
	Stalled bool `json:"stalled,omitempty"`
}

// RawSlice is one time slice: what finished in it.
type RawSlice struct {
	AtNs   int64     `json:"at_ns"`
	Counts RawCounts `json:"counts"`
	Done   hist.Wire `json:"done"`
}

// RawCounts are a slice's counters.
type RawCounts struct {
	Events, Reads, Writes, Other         int64
	Errors, Retries, Reconnects, FailedO int64
	BusyNs                               int64
	ByClass                              map[string]int64
	ByOp                                 map[int]int64
}

// Raw is r in the form an agent sends; runErr is the error Run returned
// with r (a stall travels as Stalled, not as its words only).
func (r *Result) Raw(runErr error) (*Raw, error) {
	out := &Raw{StartedUnixNs: r.Started.UnixNano(), ElapsedNs: int64(r.Elapsed), PerClientEvents: r.PerClientEvents,
		Counters: r.Counters, Statements: r.Statements, ScheduleLagNs: int64(r.ScheduleLag), Fatal: r.Fatal,
		Stalled: errors.Is(runErr, ErrStalled)}
	for _, b := range r.PerClientBusy {
		out.PerClientBusyNs = append(out.PerClientBusyNs, int64(b))
	}
	for _, s := range r.slices {
		rs, err := s.raw()
		if err != nil {
			return nil, err
		}
		out.Slices = append(out.Slices, rs)
	}
	for _, hs := range r.byStart {
		ws := make([]hist.Wire, len(hs))
		for op, h := range hs {
			w, err := h.Encode()
			if err != nil {
				return nil, err
			}
			ws[op] = w
		}
		out.ByStart = append(out.ByStart, ws)
	}
	return out, nil
}

func (s slice) raw() (RawSlice, error) {
	done, err := s.done.Encode()
	return RawSlice{AtNs: int64(s.at), Counts: rawCounts(s.counts), Done: done}, err
}

func rawCounts(c counts) RawCounts {
	rc := RawCounts{Events: c.events, Reads: c.reads, Writes: c.writes, Other: c.other, Errors: c.errors,
		Retries: c.retries, Reconnects: c.reconnects, FailedO: c.failedOps, BusyNs: c.busyNs,
		ByClass: map[string]int64{}, ByOp: c.byOp}
	for k, v := range c.byClass {
		rc.ByClass[string(k)] = v
	}
	return rc
}

func (rc RawCounts) counts() counts {
	c := counts{events: rc.Events, reads: rc.Reads, writes: rc.Writes, other: rc.Other, errors: rc.Errors,
		retries: rc.Retries, reconnects: rc.Reconnects, failedOps: rc.FailedO, busyNs: rc.BusyNs,
		byClass: map[errclass.Class]int64{}, byOp: map[int]int64{}}
	for k, v := range rc.ByClass {
		c.byClass[errclass.Class(k)] = v
	}
	for k, v := range rc.ByOp {
		c.byOp[k] = v
	}
	return c
}

// Merge is the result of a cell whose clients ran in several agents that
// started on one barrier: their time slices are added up slice by slice
// (counts summed, histograms merged, never their percentiles combined),
// and the result, its trimming and its interval lines (printed to
// cfg.Out) are made from them by the code an in-process run uses.
func Merge(cfg Config, parts []*Raw) (*Result, error) {
	m := &merged{}
	for _, p := range parts {
		if err := m.add(p); err != nil {
			return nil, err
		}
	}
	res := &Result{OpNames: cfg.OpNames, Clients: cfg.Clients, Started: m.started, Elapsed: m.elapsed,
		Counters: map[string]int64{}, ScheduleLag: m.lag, PerClientEvents: m.events, PerClientBusy: m.busy}
	col := &collector{cfg: cfg, start: m.started, nextInterval: cfg.Interval}
	for i := range m.slices {
		col.slices = m.slices[:i+1]
		col.report(m.started.Add(m.slices[i].at), res)
	}
	res.fill(m.slices, m.byStart, cfg.Trim)
	for _, p := range parts {
		for k, v := range p.Counters {
			res.Counters[k] += v
		}
	}
	res.Statements = workload.MergeStatements(m.statements...)
	res.Fatal = strings.Join(m.fatal, "; ")
	switch {
	case m.stalled:
		return res, stallError(res.Fatal)
	case res.Fatal != "":
		return res, errors.New(res.Fatal)
	}
	return res, nil
}

// stallError is an agent's stall as the owner sees it: the agents' own
// words, and errors.Is(err, ErrStalled), as an in-process stall.
type stallError string

func (e stallError) Error() string { return string(e) }
func (stallError) Unwrap() error   { return ErrStalled }

// merged is what Merge has added up so far.
type merged struct {
	started    time.Time
	elapsed    time.Duration
	lag        time.Duration
	slices     []slice
	byStart    [][]*hist.Histogram
	events     []int64
	busy       []time.Duration
	statements [][]workload.StatementStat
	fatal      []string
	stalled    bool
}

func (m *merged) add(p *Raw) error {
	if st := time.Unix(0, p.StartedUnixNs); m.started.IsZero() || st.Before(m.started) {
		m.started = st
	}
	m.elapsed = max(m.elapsed, time.Duration(p.ElapsedNs))
	m.lag = max(m.lag, time.Duration(p.ScheduleLagNs))
	m.events = append(m.events, p.PerClientEvents...)
	for _, b := range p.PerClientBusyNs {
		m.busy = append(m.busy, time.Duration(b))
	}
	m.statements = append(m.statements, p.Statements)
	if p.Fatal != "" {
		m.fatal = append(m.fatal, p.Fatal)
	}
	m.stalled = m.stalled || p.Stalled
	if err := m.addSlices(p.Slices); err != nil {
		return err
	}
	return m.addByStart(p.ByStart)
}

func (m *merged) addSlices(ss []RawSlice) error {
	for i, rs := range ss {
		if i == len(m.slices) {
			m.slices = append(m.slices, slice{counts: counts{byClass: map[errclass.Class]int64{}, byOp: map[int]int64{}}, done: hist.New()})
		}
		if err := m.addSliceAt(i, rs); err != nil {
			return err
		}
	}
	return nil
}

func (m *merged) addSliceAt(i int, rs RawSlice) error {
	done, err := hist.Decode(rs.Done)
	if err != nil {
		return err
	}
	s := &m.slices[i]
	s.at = max(s.at, time.Duration(rs.AtNs))
	s.counts.add(rs.Counts.counts())
	if s.done == nil {
		// reported already (Merge's collector lets go of it)
		s.done = hist.New()
	}
	s.done.Merge(done)
	return nil
}

func (m *merged) addByStart(bs [][]hist.Wire) error {
	for i, ws := range bs {
		if i == len(m.byStart) {
			m.byStart = append(m.byStart, newHists(len(ws)))
		}
		for op, w := range ws {
			h, err := hist.Decode(w)
			if err != nil {
				return err
			}
			m.byStart[i][op].Merge(h)
		}
	}
	return nil
}

// Live prints a cell's interval lines while its agents run: a time slice
// is complete when every agent has sent it, and the lines due by then are
// printed from the merged slices, as an in-process run prints them.
type Live struct {
	mu   sync.Mutex
	n    int
	m    merged
	got  []int // slices each agent has sent
	have []int // agents that have sent each slice
	col  *collector
	res  Result
}

// NewLive is the interval lines of n agents started at start (the
// owner's clock), printed to cfg.Out.
func NewLive(cfg Config, n int, start time.Time) *Live {
	return &Live{n: n, got: make([]int, n), col: &collector{cfg: cfg, start: start, nextInterval: cfg.Interval}}
}

// Add takes agent i's next slice.
func (l *Live) Add(i int, rs RawSlice) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	idx := l.got[i]
	l.got[i]++
	for len(l.m.slices) <= idx {
		l.m.slices = append(l.m.slices, slice{counts: counts{byClass: map[errclass.Class]int64{}, byOp: map[int]int64{}}, done: hist.New()})
		l.have = append(l.have, 0)
	}
	if err := l.m.addSliceAt(idx, rs); err != nil {
		return err
	}
	l.have[idx]++
	for next := len(l.col.slices); next < len(l.have) && l.have[next] == l.n; next++ {
		l.col.slices = l.m.slices[:next+1]
		l.col.report(l.col.start.Add(l.m.slices[next].at), &l.res)
	}
	return nil
}

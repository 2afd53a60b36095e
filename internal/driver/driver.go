// Package driver runs client goroutines against workload workers: closed loop
// or fixed rate, timing every operation, classifying and retrying errors,
// printing sysbench-shaped interval lines, and trimming warm-up and tail.
package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"shootout/internal/errclass"
	"shootout/internal/hist"
	"shootout/internal/workload"
)

// Config is what the runner asks of the driver for one cell.
type Config struct {
	Clients  int
	Duration time.Duration // stop after this long (0: only Ops bounds the run)
	Ops      int64         // stop after this many operations in all (0: only Duration)
	// Reps stops each client after this many operations of its own, as
	// siege -r does (0: no such limit); the run ends when the last ends.
	Reps int64
	// Rate is the target operations per second over all clients (0: closed
	// loop). With a rate, latency counts from the intended start time, so a
	// stalled server shows up in the percentiles instead of hiding.
	Rate float64
	// Trim is the fraction of operations dropped at the start (warm-up) and
	// at the end (clients finishing at different times) from the latency
	// figures, in the order they started (with a rate, were due); the
	// seeds used 10%.
	Trim       float64
	Interval   time.Duration // interval report period (0: none)
	MaxRetries int           // retries of one operation for retryable errors
	OpNames    []string
	Out        io.Writer // interval lines; nil for none
	// StallLimit is how long one operation may go unanswered before the
	// server is taken to have stopped answering and the run is given up
	// (0: DefaultStallLimit). The limit grows to four times the slowest
	// operation that did finish, so a workload of long operations is not
	// cut short.
	StallLimit time.Duration
	// InterruptGrace is how long operations in flight may take to finish
	// once ctx is cancelled (Ctrl-C, SIGTERM, the server's death) before
	// the run returns without them (0: DefaultInterruptGrace).
	InterruptGrace time.Duration
	// Classify sorts a failed operation's errors into classes: a lost
	// connection is replaced, a retryable error runs again. The protocol's
	// client gives it (a SQL flavour's from its dialect), so the driver
	// knows no server's error codes.
	Classify errclass.Classifier
	// Start, when set, is the run's clock's start: a barrier that every
	// agent of a cell waits for after connecting its clients, so their
	// time slices line up and merge (zero: now, once connected).
	Start time.Time
	// OnSlice, when set, is given every time slice as it is collected, in
	// its raw form: an agent streams them to its owner, which prints the
	// cell's interval lines from all agents' as they come (Live).
	OnSlice func(RawSlice)
}

// DefaultInterruptGrace lets a healthy server answer what it was asked
// (a point select takes milliseconds, a long report seconds) while a user
// who pressed Ctrl-C on a stalled server is not kept for the stall limit.
const DefaultInterruptGrace = 10 * time.Second

// DefaultStallLimit is longer than InnoDB's lock wait timeout (50 s), after
// which a waiting statement fails and is retried rather than stalling.
const DefaultStallLimit = 2 * time.Minute

// ErrStalled is the run's error when an operation went unanswered past the
// stall limit: the server stopped answering, and the run returned without
// waiting for it.
var ErrStalled = errors.New("the server stopped answering")

// Connect opens a new connection and prepares a worker on it.
type Connect func(ctx context.Context, client int) (workload.Worker, error)

// Validate reports a configuration the driver cannot run.
func (c Config) Validate() error {
	switch {
	case c.Clients < 1:
		return fmt.Errorf("clients must be at least 1, got %d", c.Clients)
	case c.Duration <= 0 && c.Ops <= 0 && c.Reps <= 0:
		return errors.New("a run needs a duration or an operation count")
	case c.Trim < 0 || c.Trim >= 0.5:
		return fmt.Errorf("trim must be in [0, 0.5), got %v", c.Trim)
	case c.Rate < 0:
		return fmt.Errorf("rate must not be negative, got %v", c.Rate)
	case len(c.OpNames) == 0:
		return errors.New("workload has no operations")
	case c.Classify == nil:
		return errors.New("no error classifier: the protocol's client must say which errors are lost connections and which retryable")
	}
	return nil
}

// counts are cumulative per-client counters, read by the ticker.
type counts struct {
	events, reads, writes, other int64
	errors, retries, reconnects  int64
	failedOps                    int64
	busyNs                       int64
	byClass                      map[errclass.Class]int64
	byOp                         map[int]int64 // failed attempts per operation
}

type client struct {
	mu sync.Mutex
	// started are the latencies since the last tick, per op, by the time
	// slice of their operation's (intended) start, which the trimming
	// goes by; spare are emptied ones to reuse, so recording allocates
	// nothing once the run is going
	started []started
	spare   [][]*hist.Histogram
	// done is every latency since the last tick, for the interval lines,
	// which are of the operations that finished in them, as sysbench's;
	// nil without interval lines
	done     *hist.Histogram
	nops     int
	t0       time.Time
	sliceLen time.Duration
	c        counts
	slowest  time.Duration // the longest operation that finished; under mu
	// opSince is when the client's current operation began (UnixNano), 0
	// between operations: the stall watch reads it without the lock
	opSince  atomic.Int64
	classify errclass.Classifier
	// lagNs is the latest the client woke for an operation it waited
	// for (at a fixed rate), what tells a client short of CPU
	lagNs atomic.Int64
}

// started is a client's latencies of operations that started in one time
// slice (idx from the run's start).
type started struct {
	idx   int
	hists []*hist.Histogram
}

// slice is one tick's worth of what finished in it.
type slice struct {
	at     time.Duration
	done   *hist.Histogram
	counts counts
}

// gcPercentDuringRun is GOGC while the clients run.
const gcPercentDuringRun = 400

// maxProcsDuringRun bounds the Ps a run raises GOMAXPROCS to (one per
// client), for a run of thousands of clients. 8 Ps were not enough at
// 100 clients beside other processes (0.54 of sysbench's point selects);
// 100 were (1.09-1.32, the client's CPU per query within sysbench's).
const maxProcsDuringRun = 128

// Run drives the workload until the duration or op count is reached, ctx is
// cancelled, or a non-retryable error stops it.
func Run(ctx context.Context, cfg Config, connect Connect) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// The clients' garbage is short-lived and their live heap small (the
	// histograms): collecting at 5× the live heap instead of 2× took
	// shootout's CPU per Redis GET from 11.4 to 8.3 µs, per pipelined
	// read from 1.63 to 1.40 and per point select at 8 clients from 16.2
	// to 15.0 (docs/bench-log.md#2026-11-26--make-bench-with-the-kv-comparisons-issue-17), CPU taken from a
	// server that shares the machine. The setting is the process's, and
	// one run drives at a time.
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercentDuringRun))
	// Go sizes its Ps to the CPUs shootout may run on: one at the
	// placement cells use. A P is one thread the kernel schedules, and it
	// gets no more of a core than any other thread there, where sysbench's
	// clients are a thread each: with one P and the machine's other
	// processes on that core, the Go client took 0.29 of sysbench's point
	// selects at 8 clients, with 8 Ps 1.13 (docs/bench-log.md#2026-11-28--the-servers-cpu-over-the-window-tcp-rows-a-p-per-client).
	if n := min(cfg.Clients, maxProcsDuringRun); n > runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	r := &run{cfg: cfg, connect: connect, clients: newClients(cfg)}
	workers, err := connectWorkers(ctx, cfg.Clients, connect)
	if err != nil {
		return nil, err
	}
	r.runCtx, r.stop = context.WithCancel(ctx)
	defer r.stop()
	r.opCtx = context.WithoutCancel(ctx)
	r.begin(barrier(ctx, cfg.Start))
	var wg sync.WaitGroup
	for i, cl := range r.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.drive(i, cl, workers[i])
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	res := &Result{OpNames: cfg.OpNames, Clients: cfg.Clients}
	col := newCollector(cfg, r.clients, r.start)
	abandoned := r.watch(ctx, col, res, done)
	return r.finish(ctx, res, col, abandoned)
}

// run is one driven run: its clients and what they share.
type run struct {
	cfg     Config
	connect Connect
	clients []*client
	// runCtx ends the clients' loops (time, a fatal error, ctx); opCtx,
	// never cancelled, is what operations run under (runOne says why)
	runCtx, opCtx context.Context
	stop          context.CancelFunc
	fatalOnce     sync.Once
	fatal         error

	// pacing: the run's start, its end by time (zero: none), the
	// operations issued in all (Ops), and at a fixed rate the tickets
	// handed out and the period between them
	start, deadline time.Time
	issued, ticket  atomic.Int64
	period          time.Duration

	countersMu sync.Mutex
	counters   []map[string]int64
	statements [][]workload.StatementStat
}

func newClients(cfg Config) []*client {
	clients := make([]*client, cfg.Clients)
	for i := range clients {
		clients[i] = &client{nops: len(cfg.OpNames), sliceLen: sliceLength(cfg), classify: cfg.Classify,
			c: counts{byClass: map[errclass.Class]int64{}, byOp: map[int]int64{}}}
		if cfg.Interval > 0 {
			clients[i].done = hist.New()
		}
	}
	return clients
}

// connectWorkers connects every client before the run starts; when one
// cannot, those connected are closed.
func connectWorkers(ctx context.Context, n int, connect Connect) ([]workload.Worker, error) {
	workers := make([]workload.Worker, n)
	for i := range workers {
		w, err := connect(ctx, i)
		if err != nil {
			for _, o := range workers[:i] {
				o.Close()
			}
			return nil, fmt.Errorf("client %d: %w", i+1, err)
		}
		workers[i] = w
	}
	return workers, nil
}

// fail ends the run with err, the first fatal error.
func (r *run) fail(err error) {
	r.fatalOnce.Do(func() { r.fatal = err; r.stop() })
}

// keep collects a worker's counters and statement timings before it
// closes.
func (r *run) keep(w workload.Worker) {
	r.countersMu.Lock()
	defer r.countersMu.Unlock()
	r.counters = append(r.counters, w.Counters())
	if st, ok := w.(workload.StatementTimer); ok {
		r.statements = append(r.statements, st.Statements())
	}
}

// begin starts the run's clock, which the deadline, the rate's schedule
// and the clients' time slices count from.
func (r *run) begin(start time.Time) {
	r.start = start
	for _, cl := range r.clients {
		cl.t0 = start
	}
	if r.cfg.Duration > 0 {
		r.deadline = start.Add(r.cfg.Duration)
	}
	if r.cfg.Rate > 0 {
		r.period = time.Duration(float64(time.Second) / r.cfg.Rate)
	}
}

// drive is one client's loop of operations, closed or paced.
func (r *run) drive(id int, cl *client, w workload.Worker) {
	defer func() {
		r.keep(w)
		w.Close()
	}()
	if looping(r.cfg, w) {
		w = runLoop(r.runCtx, r.cfg, id, cl, w, r.deadline, r.connect, r.keep, r.fail)
		return
	}
	var mine int64
	for {
		intended, woke, ok := r.next(&mine)
		if !ok {
			return
		}
		cl.behind(woke)
		w, ok = runOne(r.runCtx, r.opCtx, r.cfg, id, cl, w, intended, r.connect, r.keep, r.fail)
		cl.opSince.Store(0)
		if !ok {
			return
		}
	}
}

// next is the pacing: when a client's next operation is due (now in a
// closed loop; at a fixed rate its ticket's slot, waited for), how late a
// client that waited for that slot woke after it (its process short of
// CPU), or false when the client is done (the run ends, the count or the
// time is up). mine counts the client's own operations.
func (r *run) next(mine *int64) (time.Time, time.Duration, bool) {
	cfg := r.cfg
	if r.runCtx.Err() != nil {
		return time.Time{}, 0, false
	}
	if cfg.Ops > 0 && r.issued.Add(1) > cfg.Ops {
		return time.Time{}, 0, false
	}
	if *mine++; cfg.Reps > 0 && *mine > cfg.Reps {
		return time.Time{}, 0, false
	}
	if r.period == 0 {
		intended := time.Now()
		return intended, 0, r.deadline.IsZero() || intended.Before(r.deadline)
	}
	n := r.ticket.Add(1) - 1
	intended := r.start.Add(time.Duration(n) * r.period)
	if !r.deadline.IsZero() && !intended.Before(r.deadline) {
		return time.Time{}, 0, false
	}
	wait := time.Until(intended)
	if wait <= 0 {
		// due before a client was free: every client was busy, on the
		// server or on its own CPU; the first is no lag of the client's,
		// the second is its CPU's to tell
		return intended, 0, true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-r.runCtx.Done():
		return time.Time{}, 0, false
	case <-t.C:
	}
	return intended, time.Since(intended), true
}

// watch is the run's clock: every time slice it collects the clients'
// figures, prints the interval lines and checks for a stall; after ctx
// is cancelled it gives the operations in flight their grace. It returns
// when the clients are done, a stall is found, or the grace is over (then
// with the operations it abandoned).
func (r *run) watch(ctx context.Context, col *collector, res *Result, done <-chan struct{}) (abandoned error) {
	tick := time.NewTicker(col.sliceLen)
	defer tick.Stop()
	interrupted := ctx.Done()
	var graceOver <-chan time.Time
	stallLimit := r.cfg.StallLimit
	if stallLimit <= 0 {
		stallLimit = DefaultStallLimit
	}
	for {
		select {
		case now := <-tick.C:
			col.collect(now)
			last := col.slices[len(col.slices)-1].counts
			res.pauses.tick(now.Sub(r.start), last.events+last.errors > 0, waiting(r.clients))
			col.report(now, res)
			if err := stalled(r.clients, now, max(stallLimit, 4*col.slowest), col.slowest); err != nil {
				// the clients still waiting are left to the server's
				// stop, which ends their operations; what was measured
				// before the stall is kept
				r.fail(err)
				return nil
			}
		case <-interrupted:
			interrupted = nil
			grace := r.cfg.InterruptGrace
			if grace <= 0 {
				grace = DefaultInterruptGrace
			}
			t := time.NewTimer(grace)
			defer t.Stop()
			graceOver = t.C
		case now := <-graceOver:
			// as after a stall, the clients still waiting are left to
			// the server's stop
			return inFlight(r.clients, now)
		case <-done:
			return nil
		}
	}
}

// finish collects the last slice and makes the result, with the run's
// error: the first fatal one, else the interruption.
func (r *run) finish(ctx context.Context, res *Result, col *collector, abandoned error) (*Result, error) {
	end := time.Now()
	col.collect(end)
	res.Elapsed = end.Sub(r.start)
	res.Started = r.start
	res.fill(col.slices, col.byStart, r.cfg.Trim)
	res.slices, res.byStart = col.slices, col.byStart
	for _, cl := range r.clients {
		cl.mu.Lock()
		res.PerClientEvents = append(res.PerClientEvents, cl.c.events)
		res.PerClientBusy = append(res.PerClientBusy, time.Duration(cl.c.busyNs))
		res.ScheduleLag = max(res.ScheduleLag, time.Duration(cl.lagNs.Load()))
		cl.mu.Unlock()
	}
	res.Counters = map[string]int64{}
	r.countersMu.Lock()
	for _, m := range r.counters {
		for k, v := range m {
			res.Counters[k] += v
		}
	}
	res.Statements = workload.MergeStatements(r.statements...)
	r.countersMu.Unlock()
	if r.fatal != nil {
		res.Fatal = r.fatal.Error()
		return res, r.fatal
	}
	if err := ctx.Err(); err != nil {
		res.Fatal = "interrupted"
		if abandoned != nil {
			err = fmt.Errorf("%w; %v", err, abandoned)
			res.Fatal += "; " + abandoned.Error()
		}
		return res, err
	}
	return res, nil
}

// collector gathers the clients' figures every time slice: the slices'
// counts and the latencies by the slice their operations started in, and
// the interval lines of the slices since the last one.
type collector struct {
	cfg      Config
	clients  []*client
	start    time.Time
	sliceLen time.Duration
	slices   []slice
	// byStart[i][op] is op's latencies of operations that started in
	// slice i, nil while there are none
	byStart [][]*hist.Histogram
	prev    []counts
	slowest time.Duration
	// the interval lines: when the next is due, the first slice not yet
	// reported and when the last report was
	nextInterval, lastReportAt time.Duration
	lastReport                 int
}

func newCollector(cfg Config, clients []*client, start time.Time) *collector {
	return &collector{cfg: cfg, clients: clients, start: start, sliceLen: sliceLength(cfg),
		prev: make([]counts, len(clients)), nextInterval: cfg.Interval}
}

// collect takes what the clients did since the last tick as one slice.
func (col *collector) collect(now time.Time) {
	s := slice{at: now.Sub(col.start), counts: counts{byClass: map[errclass.Class]int64{}, byOp: map[int]int64{}}}
	if col.cfg.Interval > 0 {
		s.done = hist.New()
	}
	for i, cl := range col.clients {
		cl.mu.Lock()
		cur := cl.c
		cur.byClass = copyClasses(cl.c.byClass)
		cur.byOp = copyOps(cl.c.byOp)
		col.slowest = max(col.slowest, cl.slowest)
		col.byStart = cl.hand(col.byStart)
		if s.done != nil {
			s.done.Merge(cl.done)
			cl.done.Reset()
		}
		cl.mu.Unlock()
		s.counts.add(cur.minus(col.prev[i]))
		col.prev[i] = cur
	}
	col.slices = append(col.slices, s)
	if col.cfg.OnSlice != nil {
		if rs, err := s.raw(); err == nil {
			col.cfg.OnSlice(rs)
		}
	}
}

// report adds the interval line due at now, if one is.
func (col *collector) report(now time.Time, res *Result) {
	cfg := col.cfg
	at := now.Sub(col.start)
	if cfg.Interval <= 0 || at < col.nextInterval {
		return
	}
	iv := summariseInterval(col.slices[col.lastReport:], cfg.Clients, col.lastReportAt, at)
	col.lastReportAt = at
	res.Intervals = append(res.Intervals, iv)
	for i := range col.slices[col.lastReport:] {
		// reported: what the trimming needs is in byStart
		col.slices[col.lastReport+i].done = nil
	}
	if cfg.Out != nil {
		fmt.Fprintln(cfg.Out, iv.Line())
	}
	col.lastReport = len(col.slices)
	col.nextInterval += cfg.Interval
}

// barrier waits for start, the clock the agents of a cell share; a zero
// or past start is now.
func barrier(ctx context.Context, start time.Time) time.Time {
	if start.IsZero() {
		return time.Now()
	}
	t := time.NewTimer(time.Until(start))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return start
}

// behind notes an operation that started lag after it was due.
func (cl *client) behind(lag time.Duration) {
	for {
		cur := cl.lagNs.Load()
		if int64(lag) <= cur || cl.lagNs.CompareAndSwap(cur, int64(lag)) {
			return
		}
	}
}

// waiting is whether some client has an operation in flight.
func waiting(clients []*client) bool {
	for _, cl := range clients {
		if cl.opSince.Load() != 0 {
			return true
		}
	}
	return false
}

// pauseWatch finds the run's longest pause: a stretch in which clients
// waited on operations and none finished (a server stalled for seconds
// and then went on, which a run's averages hide), short of it by up to
// two ticks: those on either side saw operations finish.
type pauseWatch struct {
	lastProgress  time.Duration // the last tick that saw an operation finish, or no client waiting
	longest, from time.Duration
}

func (p *pauseWatch) tick(at time.Duration, finished, waiting bool) {
	if finished || !waiting {
		p.lastProgress = at
		return
	}
	if d := at - p.lastProgress; d > p.longest {
		p.longest, p.from = d, p.lastProgress
	}
}

// inFlight says which operations were still unanswered at now, when the
// run stopped waiting for them after an interrupt.
func inFlight(clients []*client, now time.Time) error {
	waiting, oldest := 0, time.Duration(0)
	for _, cl := range clients {
		if since := cl.opSince.Load(); since != 0 {
			waiting++
			oldest = max(oldest, now.Sub(time.Unix(0, since)))
		}
	}
	if waiting == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d clients' operations were still unanswered, the oldest for %v, and were abandoned",
		waiting, len(clients), oldest.Round(time.Millisecond))
}

// runOne performs one operation with retries and reconnects. It returns the
// worker to use next (a new one after a reconnect) and false when the client
// must stop.
func runOne(ctx, opCtx context.Context, cfg Config, id int, cl *client, w workload.Worker, intended time.Time,
	connect Connect, keep func(workload.Worker), fail func(error)) (workload.Worker, bool) {
	attempts := 0
	began := intended
	if cfg.Rate > 0 {
		// a fixed-rate client may start behind its schedule
		began = time.Now()
	}
	for {
		cl.opSince.Store(began.UnixNano())
		// The operation runs under a context that is never cancelled:
		// database/sql starts a goroutine per query to watch a cancellable
		// context, and the MySQL driver a channel hand-off, which together
		// doubled the client's CPU per query. Operations are short; the
		// loop checks ctx between them, and one that goes unanswered is
		// the stall watch's (opSince): the run returns without it, and
		// the server's stop ends it.
		out, err := w.Do(opCtx)
		if err == nil {
			cl.finished(out, intended, time.Since(intended))
			return cl.reconnectIfWanted(ctx, connect, id, w, keep, fail)
		}
		if errors.Is(err, workload.ErrClientDone) {
			return w, false
		}
		cl.answered(out)
		if ctx.Err() != nil {
			// The run is ending (time, Ctrl-C or another client's fatal
			// error): the interrupted operation is neither a success nor
			// an error of the server's.
			w.Abort(context.Background())
			abandon(w)
			return w, false
		}
		class := cl.countError(err, out.Op)
		switch {
		case class == errclass.ConnectionLost:
			// the session is gone with whatever the operation had not
			// committed: it is given up, not resumed on a new session
			// that never saw its first half (a workload that spans
			// several transactions records what it left unfinished)
			abandon(w)
			var ok bool
			if w, ok = cl.replaceLost(ctx, connect, id, w, err, keep, fail); !ok {
				return w, false
			}
		case restart(w, err, class):
			w.Abort(opCtx)
			attempts++
			if attempts > cfg.MaxRetries && !unlimited(w, err) {
				abandon(w)
				cl.gaveUp(out.Op, intended, time.Since(intended))
				return w, true
			}
			cl.mu.Lock()
			cl.c.retries++
			cl.mu.Unlock()
		default:
			w.Abort(opCtx)
			fail(fmt.Errorf("client %d: %w", id+1, err))
			return w, false
		}
		began = time.Now()
	}
}

// reconnectIfWanted replaces a worker that asks for a new connection
// after an operation (a workload.Reconnecter); false when that failed and
// the client must stop.
func (cl *client) reconnectIfWanted(ctx context.Context, connect Connect, id int, w workload.Worker,
	keep func(workload.Worker), fail func(error)) (workload.Worker, bool) {
	if rc, ok := w.(workload.Reconnecter); !ok || !rc.WantsReconnect() {
		return w, true
	}
	keep(w)
	w.Close()
	nw, cerr := reconnect(ctx, connect, id)
	if cerr != nil {
		if ctx.Err() == nil {
			fail(fmt.Errorf("client %d: reconnect: %w", id+1, cerr))
		}
		return nopWorker{}, false
	}
	cl.mu.Lock()
	cl.c.reconnects++
	cl.mu.Unlock()
	return nw, true
}

// countError counts a failed attempt of operation op, by its class.
func (cl *client) countError(err error, op int) errclass.Class {
	class := cl.classify(err)
	cl.mu.Lock()
	cl.c.errors++
	cl.c.byClass[class]++
	cl.c.byOp[op]++
	cl.mu.Unlock()
	return class
}

// replaceLost gives up the operation whose connection was lost (err),
// closes its worker and connects a new one; false when that failed and
// the client must stop.
func (cl *client) replaceLost(ctx context.Context, connect Connect, id int, w workload.Worker, err error,
	keep func(workload.Worker), fail func(error)) (workload.Worker, bool) {
	cl.mu.Lock()
	cl.c.failedOps++
	cl.mu.Unlock()
	keep(w)
	w.Close()
	nw, cerr := reconnect(ctx, connect, id)
	if cerr != nil {
		if ctx.Err() == nil {
			fail(fmt.Errorf("client %d lost its connection (%v) and could not reconnect: %w", id+1, err, cerr))
		}
		return nopWorker{}, false
	}
	cl.mu.Lock()
	cl.c.reconnects++
	cl.mu.Unlock()
	return nw, true
}

// Finished counts one operation of a loop outside Go that succeeded and
// took lat (a workload.LoopRecorder). The loop hands its operations over
// in batches, so the start is taken back from now by lat: later than it
// was by up to a batch, which moves it by at most one time slice.
func (cl *client) Finished(out workload.Outcome, lat time.Duration) {
	cl.finished(out, time.Now().Add(-lat), lat)
}

// finished counts one operation that began (or was due) at began,
// succeeded and took lat.
func (cl *client) finished(out workload.Outcome, began time.Time, lat time.Duration) {
	cl.mu.Lock()
	cl.record(out.Op, began, lat)
	cl.c.events++
	cl.c.reads += int64(out.Reads)
	cl.c.writes += int64(out.Writes)
	cl.c.other += int64(out.Other)
	cl.c.busyNs += int64(lat)
	cl.slowest = max(cl.slowest, lat)
	cl.mu.Unlock()
}

// answered counts the statements a failed attempt had answered before its
// error, as sysbench counts every statement it sent, those of a
// transaction later rolled back and run again included: the server did
// that work, and queries per second is what the server answered.
func (cl *client) answered(out workload.Outcome) {
	if out.Reads == 0 && out.Writes == 0 && out.Other == 0 {
		return
	}
	cl.mu.Lock()
	cl.c.reads += int64(out.Reads)
	cl.c.writes += int64(out.Writes)
	cl.c.other += int64(out.Other)
	cl.mu.Unlock()
}

// gaveUp counts operation op given up after its retries, and records the
// time it took until then with the operation's: the worst cases of a
// struggling server are those it gives up on, and percentiles that left
// them out would look better the more operations failed.
func (cl *client) gaveUp(op int, began time.Time, lat time.Duration) {
	cl.mu.Lock()
	cl.record(op, began, lat)
	cl.c.failedOps++
	cl.mu.Unlock()
}

// record files the latency of op, begun (or due) at began, under the time
// slice it began in; under mu.
func (cl *client) record(op int, began time.Time, lat time.Duration) {
	if op < 0 || op >= cl.nops {
		return
	}
	idx := max(int(began.Sub(cl.t0)/cl.sliceLen), 0)
	cl.in(idx)[op].Record(lat)
	if cl.done != nil {
		cl.done.Record(lat)
	}
}

// in is the client's histograms of slice idx since the last tick.
func (cl *client) in(idx int) []*hist.Histogram {
	for i := len(cl.started) - 1; i >= 0; i-- {
		if cl.started[i].idx == idx {
			return cl.started[i].hists
		}
	}
	var hs []*hist.Histogram
	if n := len(cl.spare); n > 0 {
		hs, cl.spare = cl.spare[n-1], cl.spare[:n-1]
	} else {
		hs = newHists(cl.nops)
	}
	cl.started = append(cl.started, started{idx: idx, hists: hs})
	return hs
}

// hand merges the client's latencies since the last tick into byStart,
// by the slice they started in, and returns byStart grown as needed;
// under mu.
func (cl *client) hand(byStart [][]*hist.Histogram) [][]*hist.Histogram {
	for _, st := range cl.started {
		for len(byStart) <= st.idx {
			byStart = append(byStart, make([]*hist.Histogram, cl.nops))
		}
		for op, h := range st.hists {
			if h.Count() == 0 {
				continue
			}
			if byStart[st.idx][op] == nil {
				byStart[st.idx][op] = hist.New()
			}
			byStart[st.idx][op].Merge(h)
			h.Reset()
		}
		cl.spare = append(cl.spare, st.hists)
	}
	cl.started = cl.started[:0]
	return byStart
}

// InFlight is when the operation a loop outside Go is waiting on began,
// for the stall watch (0: none).
func (cl *client) InFlight(since int64) { cl.opSince.Store(since) }

// looping is whether the client's worker runs its operations in a loop of
// its own: only a closed loop bounded by time, which is all such a loop
// knows; counts and rates go through Do.
func looping(cfg Config, w workload.Worker) bool {
	_, ok := w.(workload.Looper)
	return ok && cfg.Rate == 0 && cfg.Ops == 0 && cfg.Reps == 0 && cfg.Duration > 0
}

// runLoop runs a Looper's loop until the deadline or ctx, handling its
// errors as runOne does Do's: a lost connection reconnects, an error the
// workload restarts runs again (the loop starts with the failed
// operation), any other ends the run. It returns the worker it ends with.
func runLoop(ctx context.Context, cfg Config, id int, cl *client, w workload.Worker, deadline time.Time,
	connect Connect, keep func(workload.Worker), fail func(error)) workload.Worker {
	attempts := 0
	for ctx.Err() == nil && time.Now().Before(deadline) {
		lw, ok := w.(workload.Looper)
		if !ok {
			fail(fmt.Errorf("client %d: its new connection cannot run the loop its first did", id+1))
			return w
		}
		cl.mu.Lock()
		before := cl.c.events
		cl.mu.Unlock()
		out, err := lw.Loop(ctx, deadline, cl)
		cl.mu.Lock()
		progressed := cl.c.events > before
		cl.mu.Unlock()
		if progressed {
			// the retries allowed are of one operation in a row
			attempts = 0
		}
		if err == nil {
			continue
		}
		if errors.Is(err, workload.ErrClientDone) || ctx.Err() != nil {
			return w
		}
		cl.answered(out)
		class := cl.countError(err, out.Op)
		switch {
		case class == errclass.ConnectionLost:
			var ok bool
			if w, ok = cl.replaceLost(ctx, connect, id, w, err, keep, fail); !ok {
				return w
			}
		case restart(w, err, class):
			attempts++
			if attempts > cfg.MaxRetries && !unlimited(w, err) {
				// the loop cannot skip the operation: it starts with it
				fail(fmt.Errorf("client %d: %w (failed %d times in a row)", id+1, err, attempts))
				return w
			}
			cl.mu.Lock()
			cl.c.retries++
			cl.mu.Unlock()
		default:
			fail(fmt.Errorf("client %d: %w", id+1, err))
			return w
		}
	}
	return w
}

// stalled is the stall watch's verdict at now: an error naming the client
// whose operation has gone unanswered longest, if that is past limit.
func stalled(clients []*client, now time.Time, limit, slowest time.Duration) error {
	oldest, who, waiting := int64(0), 0, 0
	for i, cl := range clients {
		since := cl.opSince.Load()
		if since == 0 {
			continue
		}
		waiting++
		if oldest == 0 || since < oldest {
			oldest, who = since, i
		}
	}
	if oldest == 0 {
		return nil
	}
	age := now.Sub(time.Unix(0, oldest))
	if age <= limit {
		return nil
	}
	slow := "none had finished"
	if slowest > 0 {
		slow = fmt.Sprintf("the slowest to finish took %v", slowest.Round(time.Millisecond))
	}
	unit := time.Second
	if age < 10*time.Second {
		unit = time.Millisecond
	}
	return fmt.Errorf("%w: client %d's operation went unanswered for %v (%s; %d of %d clients were waiting); the run was given up",
		ErrStalled, who+1, age.Round(unit), slow, waiting, len(clients))
}

// restart is whether a failed operation runs again: the worker's own
// policy if it has one, else the error class's.
func restart(w workload.Worker, err error, class errclass.Class) bool {
	if p, ok := w.(workload.ErrorPolicy); ok {
		again, _ := p.Restart(err)
		return again
	}
	return class.Retryable()
}

func unlimited(w workload.Worker, err error) bool {
	if p, ok := w.(workload.ErrorPolicy); ok {
		_, u := p.Restart(err)
		return u
	}
	return false
}

// abandon tells a worker whose operations resume after errors that this
// one will not be retried again.
func abandon(w workload.Worker) {
	if a, ok := w.(workload.Abandoner); ok {
		a.Abandon()
	}
}

func reconnect(ctx context.Context, connect Connect, id int) (workload.Worker, error) {
	var last error
	backoff := 50 * time.Millisecond
	for try := 0; try < 10; try++ {
		w, err := connect(ctx, id)
		if err == nil {
			return w, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	return nil, last
}

type nopWorker struct{}

func (nopWorker) Do(context.Context) (workload.Outcome, error) { return workload.Outcome{}, nil }
func (nopWorker) Abort(context.Context)                        {}
func (nopWorker) Counters() map[string]int64                   { return nil }
func (nopWorker) Close() error                                 { return nil }

// sliceLength keeps about a hundred slices in a short run so that trimming
// 10% is accurate, and one per second in a long one so memory stays small.
func sliceLength(cfg Config) time.Duration {
	l := time.Second
	if cfg.Duration > 0 && cfg.Duration < 100*time.Second {
		l = cfg.Duration / 100
	} else if cfg.Duration <= 0 {
		l = 250 * time.Millisecond
	}
	if l < 20*time.Millisecond {
		l = 20 * time.Millisecond
	}
	if cfg.Interval > 0 && cfg.Interval < l {
		l = cfg.Interval
	}
	return l
}

func newHists(n int) []*hist.Histogram {
	hs := make([]*hist.Histogram, n)
	for i := range hs {
		hs[i] = hist.New()
	}
	return hs
}

func copyClasses(m map[errclass.Class]int64) map[errclass.Class]int64 {
	out := make(map[errclass.Class]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func copyOps(m map[int]int64) map[int]int64 {
	out := make(map[int]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (c counts) minus(o counts) counts {
	d := counts{
		events: c.events - o.events, reads: c.reads - o.reads, writes: c.writes - o.writes, other: c.other - o.other,
		errors: c.errors - o.errors, retries: c.retries - o.retries, reconnects: c.reconnects - o.reconnects,
		failedOps: c.failedOps - o.failedOps, busyNs: c.busyNs - o.busyNs, byClass: map[errclass.Class]int64{},
		byOp: map[int]int64{},
	}
	for k, v := range c.byOp {
		if x := v - o.byOp[k]; x != 0 {
			d.byOp[k] = x
		}
	}
	for k, v := range c.byClass {
		if x := v - o.byClass[k]; x != 0 {
			d.byClass[k] = x
		}
	}
	return d
}

func (c *counts) add(o counts) {
	c.events += o.events
	c.reads += o.reads
	c.writes += o.writes
	c.other += o.other
	c.errors += o.errors
	c.retries += o.retries
	c.reconnects += o.reconnects
	c.failedOps += o.failedOps
	c.busyNs += o.busyNs
	if c.byClass == nil {
		c.byClass = map[errclass.Class]int64{}
	}
	for k, v := range o.byClass {
		c.byClass[k] += v
	}
	if c.byOp == nil {
		c.byOp = map[int]int64{}
	}
	for k, v := range o.byOp {
		c.byOp[k] += v
	}
}

func stddev(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

package driver

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/dialect"
	"shootout/internal/hist"
	"shootout/internal/workload"
)

// scriptWorker is a driver-level fake: it stands for a workload, not for a
// server, so the driver's own rules can be checked exactly.
type scriptWorker struct {
	do      func(n int64) (time.Duration, error)
	n       *int64
	aborts  *int64
	commits int64
}

func (w *scriptWorker) Do(ctx context.Context) (workload.Outcome, error) {
	n := atomic.AddInt64(w.n, 1)
	d, err := w.do(n)
	if d > 0 {
		time.Sleep(d)
	}
	if err != nil {
		return workload.Outcome{}, err
	}
	w.commits++
	return workload.Outcome{Op: 0, Reads: 2, Writes: 1, Other: 2}, nil
}
func (w *scriptWorker) Abort(context.Context)      { atomic.AddInt64(w.aborts, 1) }
func (w *scriptWorker) Counters() map[string]int64 { return map[string]int64{"commits": w.commits} }
func (w *scriptWorker) Close() error               { return nil }

func connector(do func(n int64) (time.Duration, error)) (Connect, *int64, *int64, *int64) {
	var n, aborts, connects int64
	return func(ctx context.Context, client int) (workload.Worker, error) {
		atomic.AddInt64(&connects, 1)
		return &scriptWorker{do: do, n: &n, aborts: &aborts}, nil
	}, &n, &aborts, &connects
}

func base() Config {
	return Config{Clients: 2, Trim: 0.1, MaxRetries: 3, OpNames: []string{"op"}, Classify: dialect.Classify}
}

func TestOpsLimitIsExactAndCountsQueries(t *testing.T) {
	cfg := base()
	cfg.Ops = 500
	connect, _, _, _ := connector(func(int64) (time.Duration, error) { return 0, nil })
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 500 || res.Reads != 1000 || res.Writes != 500 || res.Other != 1000 {
		t.Fatalf("events/r/w/o = %d/%d/%d/%d, want 500/1000/500/1000", res.Events, res.Reads, res.Writes, res.Other)
	}
	if res.Counters["commits"] != 500 {
		t.Fatalf("committed counter = %d, want 500", res.Counters["commits"])
	}
	var sum int64
	for _, e := range res.PerClientEvents {
		sum += e
	}
	if sum != 500 {
		t.Fatalf("per-client events sum to %d", sum)
	}
}

// Reps is siege's -r: every client runs exactly its own number of
// operations, the fast ones do not take over the slow one's, and the run
// lasts until the slowest has run its last.
func TestRepsBoundEachClient(t *testing.T) {
	cfg := base()
	cfg.Clients, cfg.Reps = 3, 7
	var connects int64
	connect := func(ctx context.Context, client int) (workload.Worker, error) {
		atomic.AddInt64(&connects, 1)
		var n, aborts int64
		pause := time.Duration(0)
		if client == 0 {
			pause = 3 * time.Millisecond
		}
		return &scriptWorker{do: func(int64) (time.Duration, error) { return pause, nil }, n: &n, aborts: &aborts}, nil
	}
	start := time.Now()
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 21 {
		t.Fatalf("%d events, want 3 clients x 7", res.Events)
	}
	for i, e := range res.PerClientEvents {
		if e != 7 {
			t.Fatalf("client %d ran %d operations, want 7: %v", i, e, res.PerClientEvents)
		}
	}
	if took := time.Since(start); took < 7*3*time.Millisecond {
		t.Fatalf("the run ended after %v, before the slow client's 7 operations", took)
	}
}

func TestTrimmingDropsSlowWarmupAndTail(t *testing.T) {
	cfg := base()
	cfg.Clients = 1
	cfg.Duration = 2 * time.Second
	start := time.Now()
	// slow for the first and last 5% of the run, fast in between
	connect, _, _, _ := connector(func(int64) (time.Duration, error) {
		el := time.Since(start)
		if el < 100*time.Millisecond || el > 1900*time.Millisecond {
			return 300 * time.Millisecond, nil
		}
		return 200 * time.Microsecond, nil
	})
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	op := res.Ops["op"]
	if op.TrimmedHead == 0 || op.TrimmedTail == 0 {
		t.Fatalf("nothing trimmed: %+v", op)
	}
	if op.TrimmedHead+op.TrimmedTail > op.Untrimmed.Count/5+1 {
		t.Fatalf("trimmed %d+%d of %d: more than 2x10%%", op.TrimmedHead, op.TrimmedTail, op.Untrimmed.Count)
	}
	// slow ops sleep 300 ms; a fast one delayed by a busy machine (25-51
	// ms seen with twenty runnable threads on two cores) stays far below
	if op.MaxMs >= 200 {
		t.Fatalf("slow warm-up/tail ops survived trimming: max %.2f ms", op.MaxMs)
	}
	if op.Untrimmed.MaxMs < 300 {
		t.Fatalf("untrimmed max %.2f should include the slow ops", op.Untrimmed.MaxMs)
	}
}

func TestRetryableErrorsAreRetriedAndCounted(t *testing.T) {
	cfg := base()
	cfg.Ops = 100
	deadlock := &mysql.MySQLError{Number: 1213, Message: "Deadlock found when trying to get lock"}
	connect, _, aborts, _ := connector(func(n int64) (time.Duration, error) {
		if n%5 == 0 {
			return 0, deadlock
		}
		return 0, nil
	})
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 100 {
		t.Fatalf("events = %d, want 100 (retries must complete the op)", res.Events)
	}
	if res.ByClass["deadlock"] == 0 || res.ByClass["deadlock"] != res.Retries || res.Errors != res.Retries {
		t.Fatalf("deadlocks %d, retries %d, errors %d: want equal and > 0", res.ByClass["deadlock"], res.Retries, res.Errors)
	}
	if res.Ops["op"].Errors != res.Errors {
		t.Fatalf("per-operation errors %d != total %d", res.Ops["op"].Errors, res.Errors)
	}
	if *aborts != res.Errors {
		t.Fatalf("aborts %d != errors %d: every failed attempt must be rolled back", *aborts, res.Errors)
	}
}

func TestRetriesExhaustedGiveUpTheOperation(t *testing.T) {
	cfg := base()
	cfg.Clients = 1
	cfg.Ops = 3
	cfg.MaxRetries = 2
	connect, _, _, _ := connector(func(int64) (time.Duration, error) {
		return 0, &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}
	})
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if res.FailedOps != 3 || res.Events != 0 || res.ByClass["lock_wait_timeout"] != 9 {
		t.Fatalf("failed ops %d, events %d, lock waits %d; want 3, 0, 9", res.FailedOps, res.Events, res.ByClass["lock_wait_timeout"])
	}
}

func TestLostConnectionReconnects(t *testing.T) {
	cfg := base()
	cfg.Clients = 1
	cfg.Ops = 10
	connect, _, _, connects := connector(func(n int64) (time.Duration, error) {
		if n == 4 {
			return 0, mysql.ErrInvalidConn
		}
		return 0, nil
	})
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reconnects != 1 || *connects != 2 || res.Events != 10 {
		t.Fatalf("reconnects %d, connects %d, events %d; want 1, 2, 10", res.Reconnects, *connects, res.Events)
	}
}

func TestOtherErrorStopsTheRun(t *testing.T) {
	cfg := base()
	cfg.Duration = 10 * time.Second
	connect, _, _, _ := connector(func(n int64) (time.Duration, error) {
		if n == 20 {
			return 0, &mysql.MySQLError{Number: 1064, Message: "You have an error in your SQL syntax"}
		}
		return 0, nil
	})
	t0 := time.Now()
	res, err := Run(context.Background(), cfg, connect)
	if err == nil || !strings.Contains(err.Error(), "SQL syntax") {
		t.Fatalf("err = %v, want the syntax error", err)
	}
	if time.Since(t0) > 5*time.Second || res.Fatal == "" {
		t.Fatalf("run did not stop at once on a fatal error (fatal=%q)", res.Fatal)
	}
}

func TestRateMeasuresFromIntendedStart(t *testing.T) {
	cfg := base()
	cfg.Clients = 1
	cfg.Rate = 100 // one every 10 ms
	cfg.Duration = time.Second
	cfg.Trim = 0
	// one stall of 300 ms: the ~30 operations queued behind it must show it
	connect, _, _, _ := connector(func(n int64) (time.Duration, error) {
		if n == 20 {
			return 300 * time.Millisecond, nil
		}
		return time.Millisecond, nil
	})
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	op := res.Ops["op"]
	if op.Count < 20 {
		t.Fatalf("only %d ops at 100/s for 1 s", op.Count)
	}
	if op.P95Ms < 50 {
		t.Fatalf("p95 %.1f ms hides the stall: latency must count from the intended start", op.P95Ms)
	}
}

func TestIntervalLineShape(t *testing.T) {
	cfg := base()
	cfg.Duration = 1200 * time.Millisecond
	cfg.Interval = 500 * time.Millisecond
	var out bytes.Buffer
	cfg.Out = &out
	connect, _, _, _ := connector(func(int64) (time.Duration, error) { return time.Millisecond, nil })
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Intervals) != 2 {
		t.Fatalf("%d intervals, want 2:\n%s", len(res.Intervals), out.String())
	}
	line := strings.Split(out.String(), "\n")[0]
	for _, part := range []string{"thds: 2 tps: ", " qps: ", "(r/w/o: ", "lat (ms,95%): ", " err/s: 0.00 reconn/s: 0.00"} {
		if !strings.Contains(line, part) {
			t.Fatalf("interval line %q lacks %q", line, part)
		}
	}
	if iv := res.Intervals[0]; iv.TPS < 500 || iv.TPS > 2100 {
		t.Fatalf("interval tps %.0f, want ~2 clients x 1000/s", iv.TPS)
	}
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	for _, part := range []string{"transactions:", "queries:", "ignored errors:", "reconnects:", "95th percentile:", "events (avg/stddev):"} {
		if !strings.Contains(sum.String(), part) {
			t.Fatalf("summary lacks %q:\n%s", part, sum.String())
		}
	}
}

func TestCancelStopsAndReportsInterrupted(t *testing.T) {
	cfg := base()
	cfg.Duration = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	connect, _, _, _ := connector(func(int64) (time.Duration, error) { return time.Millisecond, nil })
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := Run(ctx, cfg, connect)
	if !errors.Is(err, context.Canceled) || res.Fatal != "interrupted" || res.Events == 0 {
		t.Fatalf("err %v, fatal %q, events %d", err, res.Fatal, res.Events)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []Config{
		{Clients: 0, Ops: 1, OpNames: []string{"a"}},
		{Clients: 1, OpNames: []string{"a"}},
		{Clients: 1, Ops: 1, Trim: 0.5, OpNames: []string{"a"}},
		{Clients: 1, Ops: 1},
		// without the protocol's classifier a lost connection could not be
		// told from a syntax error
		{Clients: 1, Ops: 1, OpNames: []string{"a"}},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v should be invalid", c)
		}
	}
}

// A server that stops answering must not hold the run past its end: the
// run gives up on the waiting clients, says so, and keeps what it measured.
func TestRunGivesUpOnAServerThatStopsAnswering(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"by duration", func(c *Config) { c.Duration = 300 * time.Millisecond }},
		// no end of its own: only the stall watch can end it
		{"by reps", func(c *Config) { c.Reps = 1 << 40 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answering := make(chan struct{})
			defer close(answering) // lets the abandoned clients finish
			connect, _, _, _ := connector(func(n int64) (time.Duration, error) {
				if n > 50 {
					<-answering
				}
				return time.Millisecond, nil
			})
			cfg := base()
			cfg.Clients = 3
			cfg.StallLimit = 200 * time.Millisecond
			tc.set(&cfg)
			began := time.Now()
			res, err := Run(context.Background(), cfg, connect)
			took := time.Since(began)
			if !errors.Is(err, ErrStalled) {
				t.Fatalf("err = %v, want ErrStalled", err)
			}
			if took > 2*time.Second {
				t.Fatalf("Run returned %v after it began, want soon after the 200ms stall limit", took)
			}
			if res == nil || res.Events < 40 || res.Events > 50 {
				t.Fatalf("result %+v: want the 40-50 operations finished before the stall", res)
			}
			for _, want := range []string{"went unanswered for", "3 of 3 clients were waiting", "the slowest to finish took"} {
				if !strings.Contains(res.Fatal, want) {
					t.Errorf("Fatal %q does not say %q", res.Fatal, want)
				}
			}
		})
	}
}

// Ctrl-C on a server that stopped answering returns within the grace,
// not the stall limit, naming the interrupt and what was abandoned; a
// healthy operation in flight at the interrupt is waited for and counted.
func TestInterruptWaitsOnlyTheGraceForOperationsInFlight(t *testing.T) {
	for _, tc := range []struct {
		name      string
		answers   bool
		wantTook  time.Duration
		abandoned bool
	}{
		{"stalled server", false, 2 * time.Second, true},
		{"healthy server", true, time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answering := make(chan struct{})
			defer close(answering) // lets the abandoned clients finish
			// the interrupt comes once all three clients are in their slow
			// operation, not at a fixed time: on a loaded machine the first
			// 30 operations could still be running at 150 ms
			var inSlow atomic.Int32
			allInSlow := make(chan struct{})
			connect, _, _, _ := connector(func(n int64) (time.Duration, error) {
				if n > 30 {
					if inSlow.Add(1) == 3 {
						close(allInSlow)
					}
					if !tc.answers {
						<-answering
					}
					return 300 * time.Millisecond, nil
				}
				return time.Millisecond, nil
			})
			cfg := base()
			cfg.Clients = 3
			cfg.Duration = time.Minute
			cfg.StallLimit = time.Minute
			cfg.InterruptGrace = 500 * time.Millisecond
			ctx, cancel := context.WithCancel(context.Background())
			var cancelled atomic.Int64
			go func() {
				<-allInSlow
				cancelled.Store(time.Now().UnixNano())
				cancel()
			}()
			res, err := Run(ctx, cfg, connect)
			took := time.Since(time.Unix(0, cancelled.Load()))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if took > tc.wantTook {
				t.Fatalf("Run returned %v after the interrupt, want within %v", took, tc.wantTook)
			}
			if got := strings.Contains(res.Fatal, "3 of 3 clients' operations were still unanswered"); got != tc.abandoned {
				t.Fatalf("Fatal %q: abandoned said %v, want %v", res.Fatal, got, tc.abandoned)
			}
			if !strings.HasPrefix(res.Fatal, "interrupted") {
				t.Fatalf("Fatal %q does not name the interrupt", res.Fatal)
			}
			if want := int64(30); tc.answers {
				// the three slow operations in flight at the interrupt finished
				if res.Events != want+3 {
					t.Fatalf("%d operations counted, want %d", res.Events, want+3)
				}
			} else if res.Events != want {
				t.Fatalf("%d operations counted, want the %d finished before the stall", res.Events, want)
			}
		})
	}
}

// The stall limit stretches to four times the slowest operation that
// finished, so a workload whose operations are long is not cut short.
func TestStallLimitFollowsTheSlowestOperation(t *testing.T) {
	now := time.Now()
	waiting := &client{}
	waiting.opSince.Store(now.Add(-90 * time.Millisecond).UnixNano())
	idle := &client{}
	clients := []*client{idle, waiting}
	limit := func(slowest time.Duration) time.Duration { return max(50*time.Millisecond, 4*slowest) }
	if err := stalled(clients, now, limit(30*time.Millisecond), 30*time.Millisecond); err != nil {
		t.Fatalf("90ms against a limit of 120ms: %v", err)
	}
	err := stalled(clients, now, limit(10*time.Millisecond), 10*time.Millisecond)
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "client 2's operation") || !strings.Contains(err.Error(), "1 of 2 clients") {
		t.Fatalf("90ms against a limit of 50ms: %v", err)
	}
	if err := stalled([]*client{idle}, now, time.Nanosecond, 0); err != nil {
		t.Fatalf("no client waiting: %v", err)
	}
}

// A server that stops answering for 600 ms and then goes on leaves a run
// that succeeds; its longest pause says how long and when, and a run with
// no stall has none that long.
func TestAPauseInsideARunIsMeasured(t *testing.T) {
	const stalled = 600 * time.Millisecond
	for _, tc := range []struct {
		name  string
		stall time.Duration
	}{{"stalled", stalled}, {"steady", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			var stallOnce sync.Once
			resume := make(chan struct{})
			var stalledAt time.Time
			connect, _, _, _ := connector(func(n int64) (time.Duration, error) {
				if tc.stall > 0 && n >= 200 {
					stallOnce.Do(func() {
						stalledAt = time.Now()
						time.AfterFunc(tc.stall, func() { close(resume) })
					})
					<-resume
				}
				return time.Millisecond, nil
			})
			cfg := base()
			cfg.Clients = 3
			cfg.Duration = 2 * time.Second
			began := time.Now()
			res, err := Run(context.Background(), cfg, connect)
			if err != nil {
				t.Fatal(err)
			}
			pause, from := res.LongestPause()
			tick := sliceLength(cfg)
			if tc.stall == 0 {
				// a loaded machine can hold the whole process off the CPU
				// for a few ticks; what must hold is that a steady run's
				// longest pause is not one the stall's would be taken for
				if pause > stalled/2 {
					t.Errorf("a steady run paused for %v (tick %v): as long as half the %v stall", pause, tick, stalled)
				}
				return
			}
			// the ticks on either side of the stall saw operations finish
			// (and the ticker's own lateness)
			if pause < tc.stall-3*tick || pause > tc.stall+tick {
				t.Errorf("longest pause %v, want the %v stall within two ticks (%v)", pause, tc.stall, tick)
			}
			if at := stalledAt.Sub(began); from < at-tick || from > at+2*tick {
				t.Errorf("the pause began at %v, the stall at %v", from, at)
			}
		})
	}
}

// An operation given up after its retries is a worst case: its time must
// reach the percentiles, or a server that fails its slowest operations
// would read faster the more it fails.
func TestGivenUpOperationsCountInThePercentiles(t *testing.T) {
	cfg := base()
	cfg.Clients = 1
	cfg.Ops = 100
	cfg.MaxRetries = 0
	cfg.Trim = 0
	connect, _, _, _ := connector(func(n int64) (time.Duration, error) {
		if n%10 == 0 {
			return 10 * time.Millisecond, &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}
		}
		return 0, nil
	})
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if res.FailedOps != 10 || res.Events != 90 {
		t.Fatalf("given up %d, events %d; want 10 and 90", res.FailedOps, res.Events)
	}
	op := res.Ops["op"]
	if op.Count != 100 || op.P95Ms < 10 || op.P99Ms < 10 || res.All.P99Ms < 10 {
		t.Fatalf("count %d, p95 %.3f ms, p99 %.3f ms, all p99 %.3f ms: the 10 operations given up after 10 ms must be among the 100 timed",
			op.Count, op.P95Ms, op.P99Ms, res.All.P99Ms)
	}
}

// At a fixed rate the trimming drops the first and last 10% of intended
// starts: warm-up is when operations were due, not when they ended. An
// operation due inside the kept window that stalled past the run's end is
// kept (trimming by completion dropped it with the tail, hiding the
// stall), and one due in the warm-up that stalled into the middle of the
// run is dropped with the warm-up (trimming by completion kept it).
func TestAtAFixedRateTrimmingGoesByIntendedStart(t *testing.T) {
	const stall = 600 * time.Millisecond
	for _, tc := range []struct {
		name string
		at   time.Duration // the first operation begun after this stalls
		kept bool
	}{
		{"due at 85%, ended after the run", 1700 * time.Millisecond, true},
		{"due at 2%, ended at 32%", 40 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			cfg.Clients = 4 // the others keep the schedule while one stalls
			cfg.Rate = 500
			cfg.Duration = 2 * time.Second
			var stalled atomic.Bool
			start := time.Now()
			connect, _, _, _ := connector(func(int64) (time.Duration, error) {
				if time.Since(start) > tc.at && stalled.CompareAndSwap(false, true) {
					return stall, nil
				}
				return 0, nil
			})
			res, err := Run(context.Background(), cfg, connect)
			if err != nil {
				t.Fatal(err)
			}
			op := res.Ops["op"]
			if op.Untrimmed.MaxMs < 600 {
				t.Fatalf("the stall is not in the untrimmed figures: max %.1f ms", op.Untrimmed.MaxMs)
			}
			if op.TrimmedHead+op.TrimmedTail > op.Untrimmed.Count/5+1 {
				t.Fatalf("trimmed %d+%d of %d: more than 2x10%%", op.TrimmedHead, op.TrimmedTail, op.Untrimmed.Count)
			}
			// the other operations take no time; a busy machine delays
			// them by far less than the stall
			if kept := op.MaxMs >= 600; kept != tc.kept {
				t.Fatalf("trimmed max %.1f ms (head %d, tail %d of %d): the stalled operation kept = %v, want %v",
					op.MaxMs, op.TrimmedHead, op.TrimmedTail, op.Untrimmed.Count, kept, tc.kept)
			}
		})
	}
}

// Recording runs once per operation on every client: filed under the
// slice its operation started in, it must allocate nothing once the
// client holds that slice's histograms, nor after a tick handed them over.
func TestRecordingAllocatesNothing(t *testing.T) {
	t0 := time.Now()
	cl := &client{done: hist.New(), nops: 2, t0: t0, sliceLen: 10 * time.Millisecond}
	out := workload.Outcome{Op: 1, Reads: 1}
	cl.finished(out, t0, time.Microsecond)
	byStart := cl.hand(nil)
	if a := testing.AllocsPerRun(1000, func() { cl.finished(out, t0, time.Microsecond) }); a != 0 {
		t.Errorf("recording allocates %v times per operation", a)
	}
	byStart = cl.hand(byStart)
	tick := func() {
		cl.finished(out, t0.Add(25*time.Millisecond), time.Microsecond)
		byStart = cl.hand(byStart)
	}
	if a := testing.AllocsPerRun(1000, tick); a != 0 {
		t.Errorf("recording and handing over allocate %v times per tick", a)
	}
	if n0, n2 := byStart[0][1].Count(), byStart[2][1].Count(); n0 != 1002 || n2 != 1001 {
		t.Errorf("slices 0 and 2 hold %d and %d latencies of op 1, want 1002 and 1001", n0, n2)
	}
}

// Started places the measured window in time for a reader outside (make
// bench reads the server's CPU over it): after the clients connected, and
// ending, with Elapsed, before Run returns.
func TestStartedPlacesTheWindowAfterTheConnects(t *testing.T) {
	cfg := base()
	cfg.Duration = 100 * time.Millisecond
	inner, _, _, _ := connector(func(int64) (time.Duration, error) { return time.Millisecond, nil })
	var connected time.Time
	connect := func(ctx context.Context, client int) (workload.Worker, error) {
		time.Sleep(30 * time.Millisecond)
		connected = time.Now()
		return inner(ctx, client)
	}
	res, err := Run(context.Background(), cfg, connect)
	returned := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if res.Started.Before(connected) {
		t.Fatalf("window started %v before the last client connected", connected.Sub(res.Started))
	}
	if end := res.Started.Add(res.Elapsed); end.After(returned) {
		t.Fatalf("window ends %v after Run returned", end.Sub(returned))
	}
}

// A run gives its clients a P each (up to maxProcsDuringRun), however few
// CPUs Go sized itself to, and gives them back after: one thread for all
// the clients gets one thread's share of a core it shares.
func TestRunRaisesGOMAXPROCSToTheClientsAndRestoresIt(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	cfg := base()
	cfg.Clients = 4
	cfg.Ops = 20
	var seen atomic.Int64
	connect, _, _, _ := connector(func(int64) (time.Duration, error) {
		seen.Store(int64(runtime.GOMAXPROCS(0)))
		return 0, nil
	})
	if _, err := Run(context.Background(), cfg, connect); err != nil {
		t.Fatal(err)
	}
	if got := seen.Load(); got != 4 {
		t.Fatalf("GOMAXPROCS during the run = %d, want 4 (a P per client)", got)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS after the run = %d, want 1 back", got)
	}
}

// The summary reads on a 100-column terminal for an operation of an
// ordinary name and figures of a slow cell (the trim once ran the line to
// 105 columns).
func TestSummaryLinesFitAHundredColumns(t *testing.T) {
	r := &Result{OpNames: []string{"event"}, Ops: map[string]OpStats{"event": {
		Snapshot:    hist.Snapshot{Count: 123456, MeanMs: 19.91, P50Ms: 15.123, P95Ms: 31.33, P99Ms: 45.678, MaxMs: 1234.567},
		TrimmedHead: 12345, TrimmedTail: 12345}}}
	var sum bytes.Buffer
	r.WriteSummary(&sum)
	for _, line := range strings.Split(sum.String(), "\n") {
		if len(line) > 100 {
			t.Errorf("%d columns: %q", len(line), line)
		}
	}
	if !strings.Contains(sum.String(), "12345 dropped at the head, 12345 at the tail") {
		t.Errorf("the trim is not said:\n%s", sum.String())
	}
}

// The schedule lag is what tells an agent short of CPU: neither a server
// slower than the rate nor a collector that misses its ticks may read as
// one (both marked every agent cell saturated on a loaded machine).
func TestScheduleLagIsNotTheServersOrTheCollectorsTime(t *testing.T) {
	const lagLimit = 100 * time.Millisecond // the agents' saturation threshold
	slowServer := func(int64) (time.Duration, error) { return 10 * time.Millisecond, nil }
	t.Run("closed loop, collector late", func(t *testing.T) {
		cfg := base()
		cfg.Duration = time.Second
		// a collector off CPU for three slices on every tick: the ticker
		// drops ticks, which there is no schedule of the clients' to lag
		cfg.OnSlice = func(RawSlice) { time.Sleep(3 * sliceLength(cfg)) }
		connect, _, _, _ := connector(slowServer)
		res, err := Run(context.Background(), cfg, connect)
		if err != nil {
			t.Fatal(err)
		}
		if res.ScheduleLag != 0 {
			t.Fatalf("a closed loop has no schedule, lag %v", res.ScheduleLag)
		}
	})
	t.Run("fixed rate above the server's", func(t *testing.T) {
		cfg := base()
		cfg.Duration = 500 * time.Millisecond
		cfg.Rate = 400 // 2 clients × 10 ms: the server answers 200/s
		connect, _, _, _ := connector(slowServer)
		res, err := Run(context.Background(), cfg, connect)
		if err != nil {
			t.Fatal(err)
		}
		if res.ScheduleLag >= lagLimit {
			t.Fatalf("lag %v: the server was the limit, the clients waited on it, not on their CPU", res.ScheduleLag)
		}
		if res.TPS() > 300 {
			t.Fatalf("%.0f tps: the fake server was not the limit", res.TPS())
		}
	})
}

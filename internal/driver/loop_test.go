package driver

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/workload"
)

// loopWorker is a Looper that stands for a loop outside Go: each Loop
// finishes operations of 1ms each until its deadline or ctx, or fails
// with the error its script gives for its nth Loop.
type loopWorker struct {
	scriptWorker
	loops    *int64
	loopErr  func(n int64) error
	stallAt  int64 // an operation of this loop number never ends (0: none)
	answered chan struct{}
}

func (w *loopWorker) Loop(ctx context.Context, until time.Time, rec workload.LoopRecorder) (workload.Outcome, error) {
	n := atomic.AddInt64(w.loops, 1)
	for i := 0; ctx.Err() == nil && time.Now().Before(until); i++ {
		rec.InFlight(time.Now().UnixNano())
		if n == w.stallAt && i == 5 {
			<-w.answered
		}
		time.Sleep(time.Millisecond)
		rec.InFlight(0)
		rec.Finished(workload.Outcome{Reads: 1}, time.Millisecond)
		if i == 20 {
			if err := w.loopErr(n); err != nil {
				return workload.Outcome{}, err
			}
		}
	}
	return workload.Outcome{}, nil
}

func loopConnector(loopErr func(n int64) error, stallAt int64, answered chan struct{}) (Connect, *int64, *int64, *int64) {
	var n, aborts, connects, loops int64
	return func(ctx context.Context, client int) (workload.Worker, error) {
		atomic.AddInt64(&connects, 1)
		return &loopWorker{scriptWorker: scriptWorker{do: func(int64) (time.Duration, error) { return 0, nil }, n: &n, aborts: &aborts},
			loops: &loops, loopErr: loopErr, stallAt: stallAt, answered: answered}, nil
	}, &n, &loops, &connects
}

// A Looper runs its own loop in a timed closed-loop run: no Do, its
// operations counted and timed as Do's; a lost connection reconnects and
// the loop goes on; an error the workload restarts runs the loop again.
func TestALoopOutsideGoIsCountedAsDoIs(t *testing.T) {
	cfg := base()
	cfg.Duration = 500 * time.Millisecond
	connect, dos, loops, connects := loopConnector(func(n int64) error {
		switch n {
		case 2:
			return mysql.ErrInvalidConn
		case 3:
			return &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}
		}
		return nil
	}, 0, nil)
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatal(err)
	}
	if *dos != 0 {
		t.Errorf("%d operations went through Do in a timed closed loop", *dos)
	}
	if res.Events < 200 || res.Reads != res.Events {
		t.Errorf("events %d, reads %d: want the loops' operations, a read each", res.Events, res.Reads)
	}
	if res.Reconnects != 1 || *connects != 3 || res.Retries != 1 || res.Errors != 2 {
		t.Errorf("reconnects %d, connects %d, retries %d, errors %d: want 1, 3 (2 clients and a reconnect), 1, 2", res.Reconnects, *connects, res.Retries, res.Errors)
	}
	if *loops < 4 {
		t.Errorf("%d loops: want the first, one after the reconnect and one after the restart, and the other client's", *loops)
	}

	// with a count of operations the driver runs Do, which every Looper has
	cfg.Duration, cfg.Ops = 0, 100
	connect, dos, loops, _ = loopConnector(func(int64) error { return nil }, 0, nil)
	if res, err = Run(context.Background(), cfg, connect); err != nil {
		t.Fatal(err)
	}
	if *dos != 100 || *loops != 0 || res.Events != 100 {
		t.Errorf("Ops 100: %d through Do, %d loops, %d events", *dos, *loops, res.Events)
	}
}

// The retries allowed are of one operation in a row: restartable errors
// spread over a run, with operations finished between them, do not add
// up to a failure.
func TestALoopsRetriesAreCountedInARow(t *testing.T) {
	cfg := base()
	cfg.Clients, cfg.Duration, cfg.MaxRetries = 1, 400*time.Millisecond, 2
	connect, _, loops, _ := loopConnector(func(int64) error {
		return &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}
	}, 0, nil)
	res, err := Run(context.Background(), cfg, connect)
	if err != nil {
		t.Fatalf("%v after %d loops, each of which finished operations before its deadlock", err, *loops)
	}
	if res.Retries < 5 {
		t.Errorf("%d retries: want one per loop, more than max_retries in all", res.Retries)
	}
}

// An error the workload does not restart ends the run, naming it; a loop
// whose operation goes unanswered is the stall watch's, as Do's is.
func TestALoopsFailuresEndTheRun(t *testing.T) {
	cfg := base()
	cfg.Duration = 10 * time.Second
	connect, _, _, _ := loopConnector(func(n int64) error {
		return &mysql.MySQLError{Number: 1064, Message: "You have an error in your SQL syntax"}
	}, 0, nil)
	began := time.Now()
	res, err := Run(context.Background(), cfg, connect)
	if err == nil || !strings.Contains(err.Error(), "SQL syntax") || time.Since(began) > 5*time.Second || res.Fatal == "" {
		t.Fatalf("err %v after %v (fatal %q): want the syntax error at once", err, time.Since(began), res.Fatal)
	}

	answered := make(chan struct{})
	defer close(answered)
	cfg.StallLimit = 200 * time.Millisecond
	connect, _, _, _ = loopConnector(func(int64) error { return nil }, 1, answered)
	began = time.Now()
	res, err = Run(context.Background(), cfg, connect)
	if !errors.Is(err, ErrStalled) || time.Since(began) > 3*time.Second {
		t.Fatalf("err %v after %v: want the stall named soon after the 200ms limit", err, time.Since(began))
	}
	if !strings.Contains(res.Fatal, "went unanswered for") {
		t.Errorf("Fatal %q does not name the stall", res.Fatal)
	}
}

package replay

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/workload"
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

// A client the driver connects again after a lost connection goes on
// with its next session: the session that lost its connection is given
// up (the cell's drift names it), never sent again from its start.
func TestAClientConnectedAgainGoesOnWithItsNextSession(t *testing.T) {
	text := header +
		`{"type":"open","session":1,"at_ns":1000}` + "\n" +
		`{"type":"command","session":1,"seq":1,"kind":"query","text":"CREATE TABLE t (a int)","start_ns":2000,"end_ns":3000}` + "\n" +
		`{"type":"command","session":1,"seq":2,"kind":"query","text":"INSERT INTO t VALUES (1)","start_ns":3000,"end_ns":4000}` + "\n" +
		`{"type":"close","session":1,"at_ns":5000}` + "\n" +
		`{"type":"open","session":2,"at_ns":6000}` + "\n" +
		`{"type":"command","session":2,"seq":1,"kind":"query","text":"SELECT 2","start_ns":7000,"end_ns":8000,"rows":1}` + "\n" +
		`{"type":"close","session":2,"at_ns":9000}` + "\n" + end
	w, err := New(map[string]string{"capture": file(t, text), "timing": "session"})
	if err != nil {
		t.Fatal(err)
	}
	rw := w.(*Workload)
	ctx := context.Background()
	// the worker speaks MariaDB's text queries through database/sql:
	// SQLite's driver answers them here without a server
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rw.SetClients(1)
	if _, err := rw.Before(ctx, db, dialect.Dialect{}, workload.Dataset{}); err != nil {
		t.Fatal(err)
	}
	worker := func() workload.Worker {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wk, err := rw.NewWorker(ctx, c, dialect.Dialect{}, workload.Dataset{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return wk
	}
	wk := worker()
	if out, err := wk.Do(ctx); err != nil || rw.s.ops[out.Op] != "create table t(a int)" {
		t.Fatalf("first operation %v, %v", out, err)
	}
	wk.Close() // its connection lost: the driver closes it and connects again
	wk2 := worker()
	out, err := wk2.Do(ctx)
	if err != nil || rw.s.ops[out.Op] != "select ?" {
		t.Fatalf("after connecting again: %q, %v; want session 2's select ?", rw.s.ops[out.Op], err)
	}
	if _, err := wk2.Do(ctx); err != workload.ErrClientDone {
		t.Errorf("after the lane's last session: %v, want ErrClientDone", err)
	}
	wk2.Close()
	inv := rw.Check(ctx, db, dialect.Dialect{}, workload.Dataset{}, nil, wk2.Counters())
	if !strings.Contains(strings.Join(inv.Drift, "\n"), "sessions given up when their connection was lost (the driver connected their client again, which went on with its next session): 1") {
		t.Errorf("drift %q, want session 1 given up", inv.Drift)
	}
}

// lanesABC is a capture whose session C began after B had ended, while
// the lanes put C after A, a short session B overlapped: C reads the
// table B made, as an application's request reads what its migrations
// made.
const lanesABC = header +
	`{"type":"open","session":1,"at_ns":1000}` + "\n" +
	`{"type":"command","session":1,"seq":1,"kind":"query","text":"SELECT 1","start_ns":1100,"end_ns":1200,"rows":1}` + "\n" +
	`{"type":"close","session":1,"at_ns":2000}` + "\n" +
	`{"type":"open","session":2,"at_ns":1500}` + "\n" +
	`{"type":"command","session":2,"seq":1,"kind":"query","text":"CREATE TABLE t (a int)","start_ns":1600,"end_ns":1700}` + "\n" +
	`{"type":"close","session":2,"at_ns":5000}` + "\n" +
	`{"type":"open","session":3,"at_ns":6000}` + "\n" +
	`{"type":"command","session":3,"seq":1,"kind":"query","text":"SELECT count(*) FROM t","start_ns":6100,"end_ns":6200,"rows":1}` + "\n" +
	`{"type":"close","session":3,"at_ns":7000}` + "\n" + end

// timing=session begins a session only after the sessions that had
// ended before it began in the capture: C waits for B, on another
// client, though its own client is free as soon as A is done.
func TestASessionBeginsAfterTheSessionsThatEndedBeforeIt(t *testing.T) {
	o := replayOnSQLite(t, map[string]string{"capture": file(t, lanesABC), "timing": "session"}, 2)
	o.bLateCFirst()
}

// timing=original sends a command on its place on the timeline, but
// never before the commits the capture saw end before it began: C, due
// at once (speed 1000), waits for B's CREATE TABLE, whose client starts
// late, and the wait counts as C's session's lag.
func TestOriginalTimingWaitsForTheCommitsBeforeACommand(t *testing.T) {
	o := replayOnSQLite(t, map[string]string{"capture": file(t, lanesABC), "timing": "original", "speed": "1000"}, 2)
	o.bLateCFirst()
	// B is late by its client's start, C by its wait for B's commit: two
	// sessions ~100 ms behind (A sent on time)
	o.rw.mu.Lock()
	lag := slices.Clone(o.rw.lag)
	o.rw.mu.Unlock()
	late := 0
	for _, l := range lag {
		if l >= 80*time.Millisecond {
			late++
		}
	}
	if late != 2 {
		t.Errorf("sessions behind %v: want B and C ~100 ms, C's wait for B's commit counted as its lag", lag)
	}
}

// With fewer clients than sessions open at once, two lanes share a
// client and could each wait for the other's commits: the original
// timeline then keeps its times alone, and the cell says what that may
// cost.
func TestOriginalTimingOnFewerClientsSaysTheOrderIsNotKept(t *testing.T) {
	o := replayOnSQLite(t, map[string]string{"capture": file(t, lanesABC), "timing": "original", "speed": "1000"}, 1)
	wk := o.worker(0)
	if wk.(*worker).inOrder {
		t.Fatal("one client for two lanes keeps the commit order: its lanes could wait for each other")
	}
	o.drain(wk)
	wk.Close()
	inv := o.check(wk.Counters())
	if drift := strings.Join(inv.Drift, "\n"); !strings.Contains(drift, "1 clients for 2 sessions open at once") || !strings.Contains(drift, "before a commit the capture saw end before it") {
		t.Errorf("drift %q: want the clients short of the capture's and what it may cost", drift)
	}
}

// A session given up when its connection was lost never sends its later
// commits: the commands of other sessions that waited for them go on
// instead of waiting until the window's end.
func TestAGivenUpSessionHoldsNoCommandBack(t *testing.T) {
	text := header +
		`{"type":"open","session":1,"at_ns":1000}` + "\n" +
		`{"type":"open","session":2,"at_ns":1050}` + "\n" +
		`{"type":"command","session":1,"seq":1,"kind":"query","text":"CREATE TABLE t (a int)","start_ns":1100,"end_ns":1200}` + "\n" +
		`{"type":"command","session":1,"seq":2,"kind":"query","text":"INSERT INTO t VALUES (1)","start_ns":1300,"end_ns":1400,"affected":1}` + "\n" +
		`{"type":"command","session":2,"seq":1,"kind":"query","text":"SELECT count(*) FROM t","start_ns":1500,"end_ns":1600,"rows":1}` + "\n" +
		`{"type":"close","session":2,"at_ns":2000}` + "\n" +
		`{"type":"close","session":1,"at_ns":5000}` + "\n" + end
	for _, timing := range []string{"original", "commit"} {
		t.Run(timing, func(t *testing.T) {
			params := map[string]string{"capture": file(t, text), "timing": timing}
			if timing == "original" {
				params["speed"] = "1000"
			}
			o := replayOnSQLite(t, params, 2)
			ctx, rw, worker := o.ctx, o.rw, o.worker
			first := worker(0)
			if _, err := first.Do(ctx); err != nil { // session 1's CREATE TABLE
				t.Fatal(err)
			}
			first.Close() // lost before its INSERT: connected again, session 1 is given up
			again := worker(0)
			defer again.Close()
			reader := worker(1)
			defer reader.Close()
			began := time.Now()
			out, err := reader.Do(ctx)
			if err != nil || rw.s.ops[out.Op] != "select count(*) from t" {
				t.Fatalf("session 2's read: %v, %v after %v (it waited for the commit session 1 never sent)", out, err, time.Since(began).Round(time.Millisecond))
			}
			if took := time.Since(began); took > time.Second {
				t.Errorf("session 2's read waited %v for a given-up session's commit", took)
			}
		})
	}
}

// onSQLite is a replay on a SQLite file: the worker speaks text queries
// through database/sql, which SQLite's driver answers with no server.
type onSQLite struct {
	t   *testing.T
	ctx context.Context
	rw  *Workload
	db  *sql.DB
}

// replayOnSQLite reads the capture of params and readies its replay for
// clients; ctx ends after 10 s.
func replayOnSQLite(t *testing.T, params map[string]string, clients int) *onSQLite {
	t.Helper()
	w, err := New(params)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rw := w.(*Workload)
	rw.SetClients(clients)
	if _, err := rw.Before(ctx, db, dialect.Dialect{}, workload.Dataset{}); err != nil {
		t.Fatal(err)
	}
	return &onSQLite{t: t, ctx: ctx, rw: rw, db: db}
}

// worker is client's worker, on a connection of its own.
func (o *onSQLite) worker(client int) workload.Worker {
	o.t.Helper()
	c, err := o.db.Conn(o.ctx)
	if err != nil {
		o.t.Fatal(err)
	}
	wk, err := o.rw.NewWorker(o.ctx, c, dialect.Dialect{}, workload.Dataset{}, client)
	if err != nil {
		o.t.Fatal(err)
	}
	return wk
}

// drain replays wk's lane to its end.
func (o *onSQLite) drain(wk workload.Worker) {
	for {
		if _, err := wk.Do(o.ctx); err != nil {
			if err != workload.ErrClientDone {
				o.t.Error(err)
			}
			return
		}
	}
}

func (o *onSQLite) check(counters map[string]int64) workload.Invariants {
	return o.rw.Check(o.ctx, o.db, dialect.Dialect{}, workload.Dataset{}, nil, counters)
}

// bLateCFirst replays lanesABC with B's client started 100 ms after the
// client of A and C, and fails the test if C's answers differ from the
// capture's (C read B's table before B made it).
func (o *onSQLite) bLateCFirst() {
	o.t.Helper()
	ac, b := o.worker(0), o.worker(1)
	done := make(chan struct{})
	go func() { o.drain(ac); close(done) }()
	time.Sleep(100 * time.Millisecond)
	o.drain(b)
	<-done
	ac.Close()
	b.Close()
	for k, n := range ac.Counters() {
		if strings.Contains(k, ":") {
			o.t.Errorf("session C's answers differ from the capture's: %s %d (it ran before session B made its table)", k, n)
		}
	}
}

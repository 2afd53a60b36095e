package run

// The runner's logic on the fake target (fake_test.go): each test takes
// seconds and starts no server.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/plan"
	"shootout/internal/result"
)

// fakeRunner is a Runner into a fresh directory, its log kept.
func fakeRunner(t *testing.T) (*Runner, *strings.Builder) {
	log := &strings.Builder{}
	return &Runner{OutDir: t.TempDir(), Log: log}, log
}

// A cell on a fake runs every step: the load, the clients, the checks,
// the result; the session and the server are closed after it.
func TestFakeCellRunsEveryStep(t *testing.T) {
	ft := &fakeTarget{name: "fake", script: fakeScript{latency: time.Millisecond}}
	res := fakePlan(t, plan.Plan{Datasets: []string{"250"}, Clients: []int{2}}, ft)
	r, log := fakeRunner(t)
	f := r.Cell(context.Background(), res, res.Cells[0])
	if !f.OK() {
		t.Fatalf("%s\n%s", f.Status, log)
	}
	if f.Load.Rows != 250 || f.Throughput.Events == 0 || f.Target.Version != "fake 1.0" || f.Space.TableBytes != 25000 {
		t.Errorf("load %+v, %d events, version %q, table bytes %d", f.Load, f.Throughput.Events, f.Target.Version, f.Space.TableBytes)
	}
	if !f.Invariants.OK || len(f.Invariants.Checked) == 0 {
		t.Errorf("invariants %+v", f.Invariants)
	}
	s := ft.server(1)
	if s.closed.Load() != 1 || s.Death() != "" {
		t.Errorf("session closed %d times, death %q", s.closed.Load(), s.Death())
	}
	select {
	case <-s.stopped:
	default:
		t.Error("the server was not stopped after its cell")
	}
}

// --resume skips a cell that ran to its end under the same conditions,
// runs again one that failed (saying so), and one whose conditions
// changed (saying which, and keeping the earlier result aside).
func TestResumeSkipsOnlyWhatRanUnderTheSameConditions(t *testing.T) {
	ok := &fakeTarget{name: "fake"}
	res := fakePlan(t, plan.Plan{Clients: []int{1, 2}, Duration: "200ms"}, ok)
	r, _ := fakeRunner(t)
	if _, err := r.Matrix(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	first, _ := os.Stat(result.Path(r.OutDir, res.Cells[0].ID))
	// the second cell failed last time
	failed, err := result.Read(result.Path(r.OutDir, res.Cells[1].ID))
	if err != nil {
		t.Fatal(err)
	}
	failed.Status = "failed: boom"
	if err := result.Write(r.OutDir, failed); err != nil {
		t.Fatal(err)
	}
	// the server that died left its log beside the failed result
	deadLog := keptLogPath(r.OutDir, failed.Cell.ID)
	if err := os.WriteFile(deadLog, []byte("mariadbd got signal 11"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := &strings.Builder{}
	r = &Runner{OutDir: r.OutDir, Log: log, Resume: true}
	sum, err := r.Matrix(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 1 || sum.Ran != 1 || !strings.Contains(log.String(), "run again (--resume): it did not succeed before (failed: boom)") {
		t.Fatalf("resume skipped %d and ran %d, want 1 and 1:\n%s", sum.Skipped, sum.Ran, log)
	}
	if again, _ := os.Stat(result.Path(r.OutDir, res.Cells[0].ID)); !again.ModTime().Equal(first.ModTime()) {
		t.Error("resume rewrote a finished cell")
	}
	if fileExists(deadLog) || !fileExists(filepath.Join(r.OutDir, "superseded", filepath.Base(deadLog))) {
		t.Error("the dead server's log of the earlier attempt stays beside the cell that now succeeded, or was not kept aside")
	}
	// another duration: every cell runs again, the earlier ones kept aside
	longer := fakePlan(t, plan.Plan{Clients: []int{1, 2}, Duration: "300ms"}, ok)
	log.Reset()
	if sum, err = r.Matrix(context.Background(), longer); err != nil || sum.Ran != 2 || sum.Skipped != 0 {
		t.Fatalf("after a duration change: ran %d, skipped %d, %v", sum.Ran, sum.Skipped, err)
	}
	if !strings.Contains(log.String(), "run again (--resume): its conditions changed: duration: 200ms vs 300ms") {
		t.Errorf("the log does not say why the cells ran again:\n%s", log)
	}
	if kept, _ := filepath.Glob(filepath.Join(r.OutDir, "superseded", "*.json")); len(kept) != 2 {
		t.Errorf("the earlier results were not kept aside: %v", kept)
	}
}

// A cell that fails says why in its status, on one line, keeps what it
// measured before the failure, and the matrix goes on to the next cell:
// a server that does not start, an error that ends the run, a broken
// invariant.
func TestFailuresAreRecordedWithWhyAndTheMatrixGoesOn(t *testing.T) {
	for _, c := range []struct {
		name   string
		script fakeScript
		want   string
		events bool
	}{
		{"start", fakeScript{startErr: errors.New("no such setting\nsecond line")}, "failed: start broken: no such setting | second line", false},
		{"fatal", fakeScript{at: func(n int64, _ int) fakeEvent {
			if n == 50 {
				return fakeFatal
			}
			return fakeOK
		}}, "failed: run: client ", true},
		{"invariant", fakeScript{lostWrite: true}, "failed: invariants: the server applied ", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			broken, next := &fakeTarget{name: "broken", script: c.script}, &fakeTarget{name: "next"}
			res := fakePlan(t, plan.Plan{Clients: []int{2}, Duration: "300ms"}, broken, next)
			r, log := fakeRunner(t)
			sum, err := r.Matrix(context.Background(), res)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Ran != 2 || len(sum.Failed) != 1 || sum.Failed[0].Cell.Target != "broken" {
				t.Fatalf("ran %d, failed %d: the matrix must go on after a failed cell\n%s", sum.Ran, len(sum.Failed), log)
			}
			f, err := result.Read(result.Path(r.OutDir, sum.Failed[0].Cell.ID))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(f.Status, c.want) || strings.Contains(f.Status, "\n") {
				t.Errorf("status %q, want one line from %q", f.Status, c.want)
			}
			if c.events && f.Throughput.Events == 0 {
				t.Errorf("what the run measured before it failed is lost: %+v", f.Throughput)
			}
			if !strings.Contains(log.String(), "cell "+f.Cell.ID+" FAILED: "+c.want) {
				t.Errorf("the log does not name the failed cell:\n%s", log)
			}
		})
	}
}

// Errors the worker runs again are retried and counted, lost connections
// reconnect and are counted, and the cell still passes its checks.
func TestRetriesAndReconnectsAreCountedAndTheCellPasses(t *testing.T) {
	ft := &fakeTarget{name: "fake", script: fakeScript{latency: 100 * time.Microsecond, at: func(n int64, _ int) fakeEvent {
		switch {
		case n%40 == 0:
			return fakeLost
		case n%15 == 0:
			return fakeRestartable
		}
		return fakeOK
	}}}
	res := fakePlan(t, plan.Plan{Clients: []int{3}, Duration: "500ms"}, ft)
	r, log := fakeRunner(t)
	f := r.Cell(context.Background(), res, res.Cells[0])
	if !f.OK() {
		t.Fatalf("%s\n%s", f.Status, log)
	}
	tp := f.Throughput
	if tp.Retries == 0 || tp.Reconnects == 0 || tp.Errors < tp.Retries+tp.Reconnects || tp.GivenUp != tp.Reconnects {
		t.Errorf("retries %d, reconnects %d, errors %d, given up %d", tp.Retries, tp.Reconnects, tp.Errors, tp.GivenUp)
	}
	if tp.ErrorsBy["connection_lost"] != tp.Reconnects {
		t.Errorf("errors by class %v: the lost connections are not named", tp.ErrorsBy)
	}
}

// stallFrom is a script whose every operation from the nth on goes
// unanswered.
func stallFrom(n int64) func(int64, int) fakeEvent {
	return func(i int64, _ int) fakeEvent {
		if i >= n {
			return fakeStall
		}
		return fakeOK
	}
}

// A server that stops answering mid-run fails the cell once an operation
// has gone unanswered past the stall limit, keeping what was measured
// before; the real-server test (death_test.go) shows what the server
// was doing.
func TestServerThatStopsAnsweringFailsTheCellAtTheStallLimit(t *testing.T) {
	ft := &fakeTarget{name: "fake", script: fakeScript{latency: time.Millisecond, at: stallFrom(100)}}
	res := fakePlan(t, plan.Plan{Clients: []int{2}, Duration: "60s"}, ft)
	r, log := fakeRunner(t)
	r.stallLimit = time.Second
	began := time.Now()
	f := r.Cell(context.Background(), res, res.Cells[0])
	if !strings.HasPrefix(f.Status, "failed: run: the server stopped answering: client ") {
		t.Fatalf("status %q must say the server stopped answering\n%s", f.Status, log)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the cell took %v: the stall limit was 1 s", took)
	}
	if f.Throughput.Events == 0 {
		t.Errorf("the operations before the stall are lost: %+v", f.Throughput)
	}
}

// Ctrl-C while the clients wait on a server that stopped answering ends
// the cell after the interrupt's grace, not the stall limit: it says it
// was interrupted and what was abandoned, keeps what was measured, stops
// the server, and ends the matrix there.
func TestInterruptOnAServerThatStopsAnsweringEndsTheCellSoon(t *testing.T) {
	ft, after := &fakeTarget{name: "fake", script: fakeScript{latency: time.Millisecond, at: stallFrom(100)}}, &fakeTarget{name: "after"}
	res := fakePlan(t, plan.Plan{Clients: []int{4}, Duration: "60s"}, ft, after)
	r, log := fakeRunner(t)
	r.interruptGrace = 500 * time.Millisecond
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	var interruptedAt time.Time
	time.AfterFunc(time.Second, func() { interruptedAt = time.Now(); interrupt() })
	sum, err := r.Matrix(ctx, res)
	if !errors.Is(err, context.Canceled) || !sum.Interrupted || sum.Ran != 1 {
		t.Fatalf("%v, %+v: the matrix must stop at the interrupted cell", err, sum)
	}
	f, err := result.Read(result.Path(r.OutDir, res.Cells[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"failed: interrupted (", "4 of 4 clients' operations were still unanswered", "were abandoned"} {
		if !strings.Contains(f.Status, want) {
			t.Errorf("status %q does not say %q\n%s", f.Status, want, log)
		}
	}
	if took := f.Ended.Sub(interruptedAt); took > 5*time.Second {
		t.Errorf("the cell ended %v after the interrupt: the grace was 0.5 s", took)
	}
	if f.Throughput.Events == 0 {
		t.Errorf("the operations before the stall are lost: %+v", f.Throughput)
	}
	select {
	case <-ft.server(1).stopped:
	default:
		t.Error("the interrupted cell's server was not stopped")
	}
}

// Ctrl-C mid-run on a server that answers: the cell is recorded as
// interrupted with what it measured, its server stopped, and no later
// cell starts.
func TestInterruptMidRunKeepsTheCellAndStops(t *testing.T) {
	ft := &fakeTarget{name: "fake", script: fakeScript{latency: time.Millisecond}}
	res := fakePlan(t, plan.Plan{Clients: []int{2, 4}, Duration: "30s"}, ft)
	r, log := fakeRunner(t)
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	time.AfterFunc(700*time.Millisecond, interrupt)
	began := time.Now()
	sum, err := r.Matrix(ctx, res)
	if !errors.Is(err, context.Canceled) || !sum.Interrupted || sum.Ran != 1 || len(ft.starts) != 1 {
		t.Fatalf("%v, %+v, %d starts: the matrix must stop at the interrupted cell\n%s", err, sum, len(ft.starts), log)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the interrupted matrix took %v", took)
	}
	files, _ := result.ReadDir(r.OutDir)
	if len(files) != 1 || !strings.HasPrefix(files[0].Status, "failed: interrupted (") || files[0].Throughput.Events == 0 {
		t.Fatalf("the interrupted cell is not recorded with what it measured: %+v", files)
	}
	if ft.server(1).closed.Load() != 1 {
		t.Error("the interrupted cell's session was not closed")
	}
}

// A server that dies mid-run ends its cell at once, which names the
// death (not the lost connections), and the next cell runs: a death the
// script makes, a real process SIGKILLed, and one SIGSTOPped, which
// shootout kills after hungFor and names so.
func TestServerDeathMidRunIsNamedAtOnce(t *testing.T) {
	for _, c := range []struct {
		name   string
		script fakeScript
		signal syscall.Signal
		want   string
		within time.Duration
	}{
		{"script", fakeScript{at: func(n int64, _ int) fakeEvent {
			if n == 300 {
				return fakeDie
			}
			return fakeOK
		}}, 0, "failed: dying died: was killed by the script (the cell was at: ", 3 * time.Second},
		{"SIGKILL", fakeScript{proc: true}, syscall.SIGKILL, "failed: dying died: was killed by signal: killed (the cell was at: ", 3 * time.Second},
		{"SIGSTOP", fakeScript{proc: true}, syscall.SIGSTOP, "failed: dying died: it stayed stopped (state T: SIGSTOP or a debugger) for 2s, so shootout killed it; it was killed by signal: killed", hungFor + 3*time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.script.latency = time.Millisecond
			dying, next := &fakeTarget{name: "dying", script: c.script}, &fakeTarget{name: "next"}
			res := fakePlan(t, plan.Plan{Clients: []int{2}, Duration: "30s"}, dying, next)
			r, log := fakeRunner(t)
			var files []*result.File
			sentAt := time.Now()
			r.OnCell = func(f *result.File) {
				files = append(files, f)
				if len(files) == 1 {
					// the next cell need not run long
					res.Duration = 200 * time.Millisecond
				}
			}
			if c.signal != 0 {
				time.AfterFunc(500*time.Millisecond, func() {
					sentAt = time.Now()
					syscall.Kill(dying.server(1).PIDs()[0], c.signal)
				})
			}
			if _, err := r.Matrix(context.Background(), res); err != nil {
				t.Fatal(err)
			}
			if len(files) != 2 || !files[1].OK() {
				t.Fatalf("the matrix must go on after the server died: %d cells\n%s", len(files), log)
			}
			dead := files[0]
			if !strings.HasPrefix(dead.Status, c.want) {
				t.Errorf("status %q, want %q", dead.Status, c.want)
			}
			if took := dead.Ended.Sub(sentAt); took > c.within {
				t.Errorf("the cell ended %v after the death: the clients must stop at once", took)
			}
			if dead.Throughput.Events == 0 {
				t.Errorf("what the run measured before the death is lost: %+v", dead.Throughput)
			}
		})
	}
}

// The load has a stall watch, and the settling after it a bound: a
// server that stops answering either fails the cell soon after the
// limit, saying which step it stopped in.
func TestServerThatStopsAnsweringInTheLoadOrTheSettlingFailsTheCell(t *testing.T) {
	for _, c := range []struct {
		name   string
		script fakeScript
		want   string
	}{
		{"load", fakeScript{loadStallAfter: 500}, "failed: load dataset 2000: the server stopped answering during the load: no rows landed for "},
		{"settle", fakeScript{settleStall: true}, "failed: settle after the load: the server stopped answering: the settling (flushes, compaction, VACUUM) went unanswered for 1s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ft := &fakeTarget{name: "fake", script: c.script}
			res := fakePlan(t, plan.Plan{Datasets: []string{"2000"}, Clients: []int{1}}, ft)
			r, log := fakeRunner(t)
			r.loadStallLimit, r.stepLimitLeast = time.Second, time.Second
			began := time.Now()
			f := r.Cell(context.Background(), res, res.Cells[0])
			if !strings.HasPrefix(f.Status, c.want) {
				t.Errorf("status %q, want %q\n%s", f.Status, c.want, log)
			}
			if took := time.Since(began); took > 8*time.Second {
				t.Errorf("the cell took %v: the limit was 1 s", took)
			}
		})
	}
}

// --repeat auto on cells that run: a steady cell stops after the fewest
// repeats that can decide, an unsteady one at the maximum, and the last
// repeat of each says why it stopped, read back from what was written.
func TestRepeatAutoStopsEachCellAndSaysWhy(t *testing.T) {
	rsd := 50.0
	steady := &fakeTarget{name: "steady", script: fakeScript{latency: time.Millisecond}}
	unsteady := &fakeTarget{name: "unsteady", script: fakeScript{latencyOf: func(start int) time.Duration {
		return time.Duration(1+9*(start%2)) * time.Millisecond
	}}}
	res := fakePlan(t, plan.Plan{Clients: []int{1}, Duration: "300ms", Repeat: "auto", RSD: &rsd, MaxRepeat: 6}, steady, unsteady)
	r, log := fakeRunner(t)
	if _, err := r.Matrix(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	least := res.AutoRepeat.Min
	for _, c := range []struct {
		target string
		n      int
		why    string
	}{
		{"steady", least, fmt.Sprintf("< 50.0%% after %d repeats", least)},
		{"unsteady", 6, "maximum of 6 repeats reached, rsd still "},
	} {
		var stops []string
		files, _ := result.ReadDir(r.OutDir)
		for _, f := range files {
			if f.Cell.Target == c.target {
				stops = append(stops, f.RepeatStop)
			}
		}
		if len(stops) != c.n {
			t.Errorf("%s: %d repeats, want %d\n%s", c.target, len(stops), c.n, log)
			continue
		}
		for i, why := range stops {
			if last := i == len(stops)-1; last != strings.Contains(why, c.why) || !last && why != "" {
				t.Errorf("%s: repeat %d of %d says %q (want %q on the last alone)", c.target, i+1, c.n, why, c.why)
			}
		}
	}
	if !strings.Contains(log.String(), ": stopped repeating: rsd ") || !strings.Contains(log.String(), ": stopped repeating: maximum of 6") {
		t.Errorf("the log does not say why a cell stopped:\n%s", log)
	}
}

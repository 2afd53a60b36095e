package run

// The fake target and its scripted session: the runner's own logic
// (matrix, resume, repeats, failures, stalls, interrupts, a server's
// death) tested in seconds, with no server. A fakeTarget stands in for a
// server shootout reaches but did not start (Managed false: no cgroups,
// no ledger); its instance is a fakeServer that answers the fake
// workload's clients as its script says. The workload finds its server
// by the endpoint's address, as a real client would.
//
// It is a workload of a native protocol (NativeWorkload, whose Native
// is its Session on the server; NativeInstance).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"shootout/internal/child"
	"shootout/internal/dialect"
	"shootout/internal/plan"
	"shootout/internal/proto"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// fakeEvent is what one operation of a fake server does.
type fakeEvent int

const (
	fakeOK          fakeEvent = iota
	fakeRestartable           // fails with an error the worker runs again
	fakeFatal                 // fails with an error that ends the run
	fakeLost                  // the client's connection drops (io.EOF): the driver reconnects
	fakeStall                 // never answered, until the server stops
	fakeDie                   // the server dies: this and every later operation lose their connection
)

var (
	errFakeRestartable = errors.New("fake: try again")
	errFakeFatal       = errors.New("fake: fatal error")
	fakeProto          = proto.Name("fake")
)

// fakeScript is what a fake server does; the zero value answers every
// operation correctly after no time at all.
type fakeScript struct {
	// latency is each operation's time; latencyOf, when set, replaces it
	// per repeat of the cell (a noisy machine's repeats differ)
	latency   time.Duration
	latencyOf func(start int) time.Duration
	// at, when set, says what operation n (counted from 1 over the whole
	// server) of client does
	at func(n int64, client int) fakeEvent
	// startErr fails the start; loadStallAfter stops the load's batches
	// landing after that many rows (0: never); settleStall holds the
	// settling after the load until it is given up
	startErr       error
	loadStallAfter int64
	settleStall    bool
	// lostWrite makes the server apply one operation more than its
	// clients were told: the invariant check must catch it
	lostWrite bool
	// proc puts a real process (sleep) behind the server, for the tests
	// that signal it: its PID is the server's
	proc bool
}

// fakeTarget is a target whose every start is a new fakeServer.
type fakeTarget struct {
	name   string
	script fakeScript
	mu     sync.Mutex
	starts []*fakeServer
}

func (t *fakeTarget) Name() string         { return t.name }
func (t *fakeTarget) Protocol() proto.Name { return fakeProto }
func (t *fakeTarget) Engine() string       { return "" }
func (t *fakeTarget) Available() error     { return nil }
func (t *fakeTarget) Managed() bool        { return false }
func (t *fakeTarget) Embedded() bool       { return false }

func (t *fakeTarget) Start(ctx context.Context, opt target.StartOptions) (target.Instance, error) {
	if t.script.startErr != nil {
		return nil, t.script.startErr
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &fakeServer{script: t.script, start: len(t.starts) + 1, gone: make(chan struct{}), stopped: make(chan struct{})}
	s.addr = fmt.Sprintf("%s#%p", t.name, s)
	if t.script.proc {
		s.cmd = exec.Command("sleep", "600")
		if err := child.Start(s.cmd); err != nil {
			return nil, err
		}
		go func() { s.cmd.Wait(); s.die("") }()
	}
	fakeServers.Store(s.addr, s)
	t.starts = append(t.starts, s)
	return s, nil
}

// server is the fake's nth start (from 1).
func (t *fakeTarget) server(n int) *fakeServer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.starts[n-1]
}

// fakeServers are the running fake servers by address.
var fakeServers sync.Map

// fakeServer is a running fake: a target.NativeInstance and Mortal.
type fakeServer struct {
	script   fakeScript
	start    int
	addr     string
	cmd      *exec.Cmd
	ops      atomic.Int64 // operations asked of it
	applied  atomic.Int64 // operations it applied
	rows     atomic.Int64
	dieOnce  sync.Once
	why      string
	gone     chan struct{} // closed when it dies
	stopOnce sync.Once
	stopped  chan struct{} // closed when it stops or dies
	closed   atomic.Int64  // sessions (steps) closed
}

// die ends the server; why is its death ("" for a process's own).
func (s *fakeServer) die(why string) {
	s.dieOnce.Do(func() {
		if why == "" && s.cmd != nil {
			why = "was killed by " + s.cmd.ProcessState.String()
		}
		s.why = why
		close(s.gone)
		s.stopOnce.Do(func() { close(s.stopped) })
	})
}

func (s *fakeServer) Exited() <-chan struct{} { return s.gone }

func (s *fakeServer) Death() string {
	select {
	case <-s.gone:
		return s.why
	default:
		return ""
	}
}

func (s *fakeServer) Version(context.Context) (string, error) { return "fake 1.0", nil }
func (s *fakeServer) Settings(context.Context) (map[string]string, error) {
	return map[string]string{"script": "fake"}, nil
}

func (s *fakeServer) PIDs() []int {
	if s.cmd == nil {
		return nil
	}
	return []int{s.cmd.Process.Pid}
}

func (s *fakeServer) DataDir() string { return "" }

func (s *fakeServer) Settle(ctx context.Context) (string, error) {
	if s.script.settleStall {
		select {
		case <-ctx.Done():
		case <-s.stopped:
		}
		return "", ctx.Err()
	}
	return "", nil
}

func (s *fakeServer) WriteBack(context.Context, time.Duration) (target.WriteBackResult, error) {
	return target.WriteBackResult{Skipped: "the fake holds nothing dirty"}, nil
}

func (s *fakeServer) Applied() map[string]string { return nil }

func (s *fakeServer) Stop(context.Context) error {
	s.stopOnce.Do(func() { close(s.stopped) })
	if s.cmd != nil {
		s.cmd.Process.Kill()
		<-s.gone
	}
	fakeServers.Delete(s.addr)
	return nil
}

func (s *fakeServer) Endpoint() proto.Endpoint {
	return proto.Endpoint{Protocol: fakeProto, Network: "tcp", Address: s.addr, External: true}
}

func (s *fakeServer) DataBytes(context.Context) (int64, error) { return 100 * s.rows.Load(), nil }

func (s *fakeServer) isGone() bool {
	select {
	case <-s.gone:
		return true
	default:
		return false
	}
}

// fakeWorkload is the workload "fake": it speaks the fake protocol only.
type fakeWorkload struct{}

func init() {
	workload.Register(workload.Spec{Name: "fake", Description: "test only: a scripted session on a fake server",
		New: func(workload.Values) (workload.Workload, error) { return fakeWorkload{}, nil }})
}

func (fakeWorkload) Name() string           { return "fake" }
func (fakeWorkload) Description() string    { return "test only" }
func (fakeWorkload) Ops() []string          { return []string{"op"} }
func (fakeWorkload) DefaultDataset() string { return "100" }
func (fakeWorkload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	n, err := strconv.ParseInt(spec, 10, 64)
	if err != nil || n <= 0 {
		return workload.Dataset{}, fmt.Errorf("dataset %q: a row count", spec)
	}
	return workload.Dataset{Name: spec, Rows: n, Seed: seed}, nil
}

// Speaks: the plan is resolved on a stand-in target (fakePlan), so any.
func (fakeWorkload) Speaks(proto.Name, dialect.Dialect) error { return nil }

func (fakeWorkload) Native(ep proto.Endpoint) (workload.Session, error) {
	s, ok := fakeServers.Load(ep.Address)
	if !ok {
		return nil, fmt.Errorf("fake: no server at %s", ep.Address)
	}
	return &fakeSteps{srv: s.(*fakeServer)}, nil
}

// fakeSteps are the fake workload's session on one fake server.
type fakeSteps struct{ srv *fakeServer }

func (st *fakeSteps) Load(ctx context.Context, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	s := st.srv
	for s.rows.Load() < ds.Rows {
		if s.isGone() {
			return workload.LoadStats{}, fmt.Errorf("fake: connection lost: %w", io.EOF)
		}
		if a := s.script.loadStallAfter; a > 0 && s.rows.Load() >= a {
			<-ctx.Done()
			return workload.LoadStats{}, ctx.Err()
		}
		n := min(10, ds.Rows-s.rows.Load())
		s.rows.Add(n)
		if progress != nil {
			progress(n)
		}
	}
	return workload.LoadStats{Rows: ds.Rows, Tables: map[string]int64{"fake": ds.Rows}}, nil
}

func (st *fakeSteps) Before(context.Context, workload.Dataset) (workload.State, error) {
	return workload.State{"applied": st.srv.applied.Load()}, nil
}

func (st *fakeSteps) NewWorker(_ context.Context, _ workload.Dataset, client int) (workload.Worker, error) {
	if st.srv.isGone() {
		return nil, fmt.Errorf("fake: %w", syscall.ECONNREFUSED)
	}
	return &fakeWorker{srv: st.srv, client: client}, nil
}

// Check: what the server applied in the window is what its clients
// counted as committed.
func (st *fakeSteps) Check(_ context.Context, _ workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	applied := st.srv.applied.Load() - before["applied"]
	inv := workload.Invariants{OK: applied == counters["ops"], Checked: []string{fmt.Sprintf("applied %d = committed %d", applied, counters["ops"])}}
	if !inv.OK {
		inv.Failures = []string{fmt.Sprintf("the server applied %d operations, its clients committed %d", applied, counters["ops"])}
	}
	return inv
}

func (st *fakeSteps) Close() error { st.srv.closed.Add(1); return nil }

// fakeWorker is one client of a fake server.
type fakeWorker struct {
	srv    *fakeServer
	client int
	ops    int64
	lost   bool
}

func (w *fakeWorker) Do(context.Context) (workload.Outcome, error) {
	s := w.srv
	if w.lost || s.isGone() {
		return workload.Outcome{}, fmt.Errorf("fake: connection lost: %w", io.EOF)
	}
	ev := fakeOK
	if n := s.ops.Add(1); s.script.at != nil {
		ev = s.script.at(n, w.client)
	}
	switch ev {
	case fakeStall:
		<-s.stopped
		return workload.Outcome{}, fmt.Errorf("fake: connection lost: %w", io.EOF)
	case fakeDie:
		s.die("was killed by the script")
		return workload.Outcome{}, fmt.Errorf("fake: connection lost: %w", io.EOF)
	case fakeLost:
		w.lost = true
		return workload.Outcome{}, fmt.Errorf("fake: connection lost: %w", io.EOF)
	case fakeRestartable:
		return workload.Outcome{}, errFakeRestartable
	case fakeFatal:
		return workload.Outcome{}, errFakeFatal
	}
	lat := s.script.latency
	if s.script.latencyOf != nil {
		lat = s.script.latencyOf(s.start)
	}
	if lat > 0 {
		time.Sleep(lat)
	}
	w.ops++
	if s.applied.Add(1) == 1 && s.script.lostWrite {
		s.applied.Add(1)
	}
	return workload.Outcome{Reads: 1}, nil
}

// Restart is the worker's error policy: its restartable error runs again.
func (w *fakeWorker) Restart(err error) (again, unlimited bool) {
	return errors.Is(err, errFakeRestartable), false
}

func (w *fakeWorker) Abort(context.Context)      {}
func (w *fakeWorker) Counters() map[string]int64 { return map[string]int64{"ops": w.ops} }
func (w *fakeWorker) Close() error               { return nil }

// standIns are targets the plan knows, whose names a fake takes over in
// the resolved plan: the plan resolves real names only.
var standIns = []string{"redis", "memcached", "tarantool-memtx"}

// fakePlan resolves p with the workload "fake" (unless p names one) on
// the fakes given, in that order, and a second's cells unless p says.
func fakePlan(t *testing.T, p plan.Plan, fakes ...*fakeTarget) *plan.Resolved {
	t.Helper()
	p.Targets = standIns[:len(fakes)]
	if len(p.Workloads) == 0 {
		p.Workloads = []string{"fake"}
	}
	if p.Duration == "" && p.Ops == 0 {
		p.Duration = "1s"
	}
	if p.Interval == "" {
		p.Interval = "0s"
	}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	res.Targets = nil
	for i, f := range fakes {
		byName[standIns[i]] = f.name
		res.Targets = append(res.Targets, f)
	}
	for i := range res.Cells {
		c := &res.Cells[i]
		c.Target = byName[c.Target]
		c.ID = plan.CellID(*c)
	}
	res.Baseline = fakes[0].name
	return res
}

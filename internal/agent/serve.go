package agent

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/proto"
	"shootout/internal/target"
	"shootout/internal/workload"
	_ "shootout/internal/workload/all" // the workloads an owner may name
)

// Listen parses an agent's address, unix:PATH (unix:@NAME: Linux's
// abstract namespace), tcp:HOST:PORT or fd:3 (the listener its owner
// bound and handed it), and listens there; tcp only on a loopback
// address: an agent is given its endpoint's password and is not to be
// reached from elsewhere yet.
func Listen(addr string) (net.Listener, error) {
	network, a, ok := strings.Cut(addr, ":")
	switch {
	case ok && network == "fd" && a == "3":
		return net.FileListener(os.NewFile(3, "listener"))
	case ok && network == "unix":
		return net.Listen("unix", a)
	case ok && network == "tcp":
		host, _, err := net.SplitHostPort(a)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--listen %q: a tcp address must be a loopback IP and a port (tcp:127.0.0.1:PORT)", addr)
		}
		return net.Listen("tcp", a)
	}
	return nil, fmt.Errorf("--listen %q: valid are unix:PATH, tcp:127.0.0.1:PORT and fd:3", addr)
}

// Serve answers the owner on lis until ctx ends; on a unix socket, only
// a process of the agent's own user.
func Serve(ctx context.Context, lis net.Listener) error {
	s := grpc.NewServer(serverOpts()...)
	s.RegisterService(&serviceDesc, &agentServer{})
	go func() { <-ctx.Done(); s.Stop() }()
	err := s.Serve(sameUser{lis, os.Getuid()})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// sameUser is a listener that hangs up on a unix-socket peer of another
// user than uid: an abstract socket has no permissions of its own.
type sameUser struct {
	net.Listener
	uid int
}

func (l sameUser) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uc, ok := c.(*net.UnixConn)
		if !ok {
			return c, nil
		}
		uid, err := peerUID(uc)
		if err == nil && uid == l.uid {
			return c, nil
		}
		fmt.Fprintf(os.Stderr, "agent: refused a connection from uid %d (want %d): %v\n", uid, l.uid, err)
		c.Close()
	}
}

// peerUID is the user of the process at c's other end (SO_PEERCRED).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if credErr != nil {
		return -1, credErr
	}
	return int(cred.Uid), nil
}

// agentServer serves one owner: a cell at a time, prepared before its
// barrier and then run.
type agentServer struct {
	mu   sync.Mutex
	prep *prepared
}

func (*agentServer) Clock(context.Context, *ClockRequest) (*ClockReply, error) {
	return &ClockReply{NowUnixNs: time.Now().UnixNano()}, nil
}

// prepared is a cell's session in this agent, made before the barrier:
// what an in-process run has made before its window (the workload, the
// pool, what Before read) is not made in the agent's measured run either.
type prepared struct {
	key  string
	w    workload.Workload
	ds   workload.Dataset
	sess workload.Session
	db   *sql.DB
}

func (p *prepared) close() {
	p.sess.Close()
	if p.db != nil {
		p.db.Close()
	}
}

// prepKey is what a prepared session was made for: the cell, not this
// agent's share of it. It stays in memory (it holds the password).
func (req *RunRequest) prepKey() string {
	b, _ := json.Marshal([]any{req.Workload, req.Params, req.Dataset, req.Seed, req.Endpoint.proto(), req.Endpoint.Conn, req.Clients, req.Agents})
	return string(b)
}

// Prepare makes the cell's session ahead of Run.
func (s *agentServer) Prepare(ctx context.Context, req *RunRequest) (*PrepareReply, error) {
	p, err := prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	old := s.prep
	s.prep = p
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
	return &PrepareReply{}, nil
}

// take is the session prepared for req, or one made now.
func (s *agentServer) take(ctx context.Context, req *RunRequest) (*prepared, error) {
	s.mu.Lock()
	p := s.prep
	s.prep = nil
	s.mu.Unlock()
	if p != nil && p.key == req.prepKey() {
		return p, nil
	}
	if p != nil {
		p.close()
	}
	return prepare(ctx, req)
}

func prepare(ctx context.Context, req *RunRequest) (*prepared, error) {
	if err := req.Endpoint.local(); err != nil {
		return nil, err
	}
	w, err := workload.New(req.Workload, req.Params)
	if err != nil {
		return nil, err
	}
	ep := req.Endpoint.proto()
	if err := Supports(w, ep.Protocol, req.Agents); err != nil {
		return nil, err
	}
	ds, err := w.Dataset(req.Dataset, req.Seed)
	if err != nil {
		return nil, err
	}
	if ca, ok := w.(workload.ClientsAware); ok {
		ca.SetClients(req.Clients)
	}
	db, err := pool(ep, req.Endpoint.Conn)
	if err != nil {
		return nil, err
	}
	p := &prepared{key: req.prepKey(), w: w, ds: ds, db: db}
	if p.sess, err = workload.Open(w, ep, db); err != nil {
		if db != nil {
			db.Close()
		}
		return nil, err
	}
	if _, ok := w.(workload.AgentBefore); ok {
		if _, err := p.sess.Before(ctx, ds); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

// Run runs this agent's clients of the cell through the driver, as an
// in-process run would, and answers with the raw run.
func (s *agentServer) Run(ctx context.Context, req *RunRequest, onSlice func(driver.RawSlice)) (*RunReply, error) {
	p, err := s.take(ctx, req)
	if err != nil {
		return nil, err
	}
	defer p.close()
	connect := func(ctx context.Context, i int) (workload.Worker, error) {
		return p.sess.NewWorker(ctx, p.ds, req.ClientIDs[i])
	}
	cpu0, sched0 := selfCPU(), selfSched()
	cfg := req.config(p.w.Ops())
	cfg.OnSlice = onSlice
	res, runErr := driver.Run(ctx, cfg, connect)
	if res == nil {
		return nil, runErr
	}
	raw, err := res.Raw(runErr)
	if err != nil {
		return nil, err
	}
	sched := selfSched().minus(sched0)
	return &RunReply{Raw: raw, CPUNs: int64(selfCPU() - cpu0), CPUs: runtime.NumCPU(), RunNs: sched.run, WaitNs: sched.wait}, nil
}

// pool is the agent's own pool on a SQL endpoint (nil on a native one),
// connected once so that a wrong address or password fails the run
// before its barrier rather than as every client's first error.
func pool(ep proto.Endpoint, conn map[string]string) (*sql.DB, error) {
	if ep.Protocol != proto.SQL {
		return nil, nil
	}
	db, err := target.OpenPool(ep, conn)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("agent: connect to %s: %w", ep, err)
	}
	return db, nil
}

func (req *RunRequest) config(ops []string) driver.Config {
	return driver.Config{Clients: len(req.ClientIDs), Duration: time.Duration(req.DurationNs), Ops: req.Ops, Reps: req.Reps,
		Rate: req.Rate, Trim: req.Trim, Interval: time.Duration(req.IntervalNs), MaxRetries: req.MaxRetries, OpNames: ops,
		StallLimit: time.Duration(req.StallLimitNs), InterruptGrace: time.Duration(req.InterruptGraceNs),
		Classify: dialect.Classify, Start: time.Unix(0, req.StartUnixNs)}
}

func (e Endpoint) proto() proto.Endpoint {
	return proto.Endpoint{Protocol: proto.Name(e.Protocol), Network: e.Network, Address: e.Address, User: e.User,
		Password: e.Password, Database: e.Database, External: e.External, Engine: e.Engine, Dialect: e.Dialect}
}

// local is nil when e is on this machine (a unix socket, a loopback
// address, an embedded database's file): the agent sends its password
// nowhere else.
func (e Endpoint) local() error {
	if e.Network == "unix" || e.Network == "file" {
		return nil
	}
	if e.Network == "tcp" {
		host, _, err := net.SplitHostPort(e.Address)
		if ip := net.ParseIP(host); err == nil && ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("agent: endpoint %s is not a unix socket or a loopback address; an agent connects to nothing else", e)
}

// String is the endpoint for a log line, without its password.
func (e Endpoint) String() string { return e.proto().String() }

// GoString is String, for %#v.
func (e Endpoint) GoString() string { return e.String() }

// selfCPU is the CPU time the agent's process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// schedTimes are a process's threads' time on a CPU and runnable waiting
// for one, added up.
type schedTimes struct{ run, wait int64 }

func (a schedTimes) minus(b schedTimes) schedTimes {
	return schedTimes{max(a.run-b.run, 0), max(a.wait-b.wait, 0)}
}

// selfSched reads every thread's /proc schedstat (ns on a CPU, ns
// waiting on a run queue, timeslices): a closed loop has no schedule to
// fall behind, and what tells an agent short of CPU there is its threads
// waiting for one — for its quota, or behind other processes — longer
// than they ran. A thread that exited meanwhile is missed (Go's seldom
// do); zero where the kernel keeps no schedstat.
func selfSched() schedTimes {
	var t schedTimes
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/schedstat")
		if err != nil {
			continue
		}
		var run, wait, slices int64
		if _, err := fmt.Sscan(string(b), &run, &wait, &slices); err == nil {
			t.run += run
			t.wait += wait
		}
	}
	return t
}

// MaybeServe serves as an agent and exits when the process was started
// as one (`EXE agent --listen ADDR`), for a test binary that runs cells
// with agents, as limits.MaybeExec does for limited servers; elsewhere it
// does nothing.
func MaybeServe() {
	if len(os.Args) != 4 || os.Args[1] != "agent" || os.Args[2] != "--listen" {
		return
	}
	lis, err := Listen(os.Args[3])
	if err == nil {
		err = Serve(context.Background(), lis)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

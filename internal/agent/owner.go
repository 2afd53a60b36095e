package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"shootout/internal/child"
	"shootout/internal/driver"
	"shootout/internal/result"
)

// Saturation thresholds: an agent that used this share of the CPU it was
// given, or whose clients spent this share of their time on its CPU or
// waiting for one (so less on the server than on themselves), or that
// woke this late for its schedule (at a fixed rate), was short of CPU: it
// measured its own limits as much as the server's.
const (
	SaturatedCPU   = 0.9
	SaturatedShare = 0.5
	SaturatedLag   = 100 * time.Millisecond
)

// saturated is whether an agent that used cores of the allowed cores it
// was given (its CPUs, or its quota), whose clients spent share of their
// time on its CPU or waiting for one, and that woke lag late for its
// schedule was short of CPU. A closed loop has no schedule (lag 0): there
// its CPU and its share tell.
func saturated(cores, allowed, share float64, lag time.Duration) bool {
	return len(saturatedBy(cores, allowed, share, lag)) > 0
}

// saturatedBy says which of saturated's rules an agent met, in words the
// report prints.
func saturatedBy(cores, allowed, share float64, lag time.Duration) []string {
	var by []string
	if cores >= SaturatedCPU*allowed {
		by = append(by, fmt.Sprintf("used %.2f of the %.2f cores it was given", cores, allowed))
	}
	if share >= SaturatedShare {
		by = append(by, fmt.Sprintf("%.0f%% of its clients' time on its CPU or waiting for one", share*100))
	}
	if lag >= SaturatedLag {
		by = append(by, fmt.Sprintf("woke %.0f ms late for its schedule", float64(lag)/float64(time.Millisecond)))
	}
	return by
}

// allowed is the CPU an agent on cpus CPUs may use in cores: its quota
// where it has one.
func allowed(cpus int, quota float64) float64 {
	if quota > 0 {
		return min(float64(cpus), quota)
	}
	return float64(cpus)
}

// Stat is what the owner records of one agent, as the cell holds it.
type Stat = result.Agent

// Ledger records the agents' PIDs, as the servers', for the next
// command's sweep: the parent-death signal is the first line, the sweep
// the second (limits.Ledger; nil records nothing).
type Ledger interface {
	AddServer(pid int, dir string)
	ForgetServer(pid int, dir string)
}

// Agents are the agent processes of one run, started by it.
type Agents struct {
	// CPUQuota is the CPU, in cores, each agent's cgroup lets it use (0:
	// its CPUs), which its saturation is measured against.
	CPUQuota float64
	cmds     []*exec.Cmd
	conns    []*grpc.ClientConn
	led      Ledger
}

// Start starts n agents, each `exe agent --listen fd:3` with the
// parent-death signal (a SIGKILLed owner leaves none running), and waits
// until each answers. The owner binds each agent's socket itself and
// hands the agent the listener: an agent is given the endpoint's
// password, and an abstract socket has no permissions, so no other
// process may bind the name first (it is random too) and the agent
// answers its own user only. The sockets are abstract (Linux): nothing is
// left in the file system by a run that was killed. wrap, when not nil,
// rewrites agent i's command before it starts (limits.Group.Wrap: the
// agent joins its cgroups before it allocates anything).
func Start(ctx context.Context, exe string, n int, led Ledger, wrap func(i int, cmd *exec.Cmd) error) (*Agents, error) {
	a := &Agents{led: led}
	for i := range n {
		var w func(*exec.Cmd) error
		if wrap != nil {
			w = func(cmd *exec.Cmd) error { return wrap(i, cmd) }
		}
		if err := a.spawn(exe, w); err != nil {
			a.Stop()
			return nil, fmt.Errorf("agent %d: %w", i+1, err)
		}
	}
	for i := range a.conns {
		if _, err := a.offset(ctx, i, 10*time.Second); err != nil {
			a.Stop()
			return nil, fmt.Errorf("agent %d did not answer: %w", i+1, err)
		}
	}
	return a, nil
}

// spawn binds a socket, starts an agent on it and connects to it.
func (a *Agents) spawn(exe string, wrap func(*exec.Cmd) error) error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	name := "shootout-agent-" + hex.EncodeToString(b[:])
	lis, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@" + name, Net: "unix"})
	if err != nil {
		return err
	}
	defer lis.Close()
	f, err := lis.File() // a copy: the agent's once it has started
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(exe, "agent", "--listen", "fd:3")
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = os.Stderr, os.Stderr, []*os.File{f}
	if wrap != nil {
		if err := wrap(cmd); err != nil {
			return err
		}
	}
	if err := child.Start(cmd); err != nil {
		return err
	}
	a.cmds = append(a.cmds, cmd)
	if a.led != nil {
		a.led.AddServer(cmd.Process.Pid, "")
	}
	conn, err := grpc.NewClient("unix-abstract:"+name, append(clientOpts(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		return err
	}
	a.conns = append(a.conns, conn)
	return nil
}

// offset measures agent i's clock against the owner's, waiting up to
// wait for it to answer.
func (a *Agents) offset(ctx context.Context, i int, wait time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t0 := time.Now()
	var rep ClockReply
	if err := a.conns[i].Invoke(ctx, "/shootout.Agent/Clock", &ClockRequest{}, &rep, grpc.WaitForReady(true)); err != nil {
		return 0, err
	}
	t1 := time.Now()
	return time.Unix(0, rep.NowUnixNs).Sub(t0.Add(t1.Sub(t0) / 2)), nil
}

// PIDs are the agents' processes.
func (a *Agents) PIDs() []int {
	var pids []int
	for _, cmd := range a.cmds {
		pids = append(pids, cmd.Process.Pid)
	}
	return pids
}

// Stop ends the agents and waits for them.
func (a *Agents) Stop() {
	for _, c := range a.conns {
		c.Close()
	}
	for _, cmd := range a.cmds {
		if cmd.Process != nil {
			cmd.Process.Kill()
			cmd.Wait()
			if a.led != nil {
				a.led.ForgetServer(cmd.Process.Pid, "")
			}
		}
	}
	a.cmds, a.conns = nil, nil
}

// Run runs the cell's cfg.Clients clients split across the agents, from
// one barrier, and merges what they measured into one result (its
// interval lines printed to cfg.Out as an in-process run prints them).
func (a *Agents) Run(ctx context.Context, cfg driver.Config, base RunRequest) (*driver.Result, []Stat, error) {
	if err := a.prepare(ctx, cfg, base); err != nil {
		return nil, nil, err
	}
	reqs, stats, start, err := a.plan(ctx, cfg, base)
	if err != nil {
		return nil, nil, err
	}
	live := driver.NewLive(cfg, len(reqs), start)
	raws := make([]*driver.Raw, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raws[i], errs[i] = a.run(ctx, i, reqs[i], &stats[i], live)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, stats, err
	}
	// the interval lines were printed as the slices came
	quiet := cfg
	quiet.Out = nil
	res, err := driver.Merge(quiet, raws)
	return res, stats, err
}

// prepare has every agent make the cell's session before the barrier is
// set (the pool, what Before read), as an in-process run has it before
// its window.
func (a *Agents) prepare(ctx context.Context, cfg driver.Config, base RunRequest) error {
	errs := make([]error, len(a.conns))
	var wg sync.WaitGroup
	for i, conn := range a.conns {
		req := base
		req.Clients, req.Agents = cfg.Clients, len(a.conns)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := conn.Invoke(ctx, "/shootout.Agent/Prepare", &req, &PrepareReply{}); err != nil {
				errs[i] = fmt.Errorf("agent %d (pid %d): %w", i+1, a.cmds[i].Process.Pid, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (a *Agents) run(ctx context.Context, i int, req RunRequest, st *Stat, live *driver.Live) (*driver.Raw, error) {
	rep, err := a.stream(ctx, i, req, live)
	if err != nil {
		return nil, fmt.Errorf("agent %d (pid %d): %w", i+1, a.cmds[i].Process.Pid, err)
	}
	raw := rep.Raw
	// into the owner's clock, which the merged window is in
	raw.StartedUnixNs -= int64(st.ClockOffsetMs * 1e6)
	if raw.ElapsedNs > 0 {
		st.CPUCores = float64(rep.CPUNs) / float64(raw.ElapsedNs)
	}
	st.CPUs, st.ScheduleLagMs = rep.CPUs, float64(raw.ScheduleLagNs)/1e6
	for _, e := range raw.PerClientEvents {
		st.Events += e
	}
	// a closed-loop client's time is its own (on a CPU, or runnable
	// waiting for one: its quota, other processes) or the server's; its
	// threads are about its clients (GOMAXPROCS is raised to them)
	st.CPUWaitS = float64(rep.WaitNs) / 1e9
	if raw.ElapsedNs > 0 && st.Clients > 0 {
		st.CPUShare = float64(rep.RunNs+rep.WaitNs) / float64(int64(st.Clients)*raw.ElapsedNs)
	}
	st.SaturatedBy = saturatedBy(st.CPUCores, allowed(rep.CPUs, a.CPUQuota), st.CPUShare, time.Duration(raw.ScheduleLagNs))
	st.Saturated = len(st.SaturatedBy) > 0
	return raw, nil
}

// stream sends agent i its request and hands each slice it streams back
// to live until the reply.
func (a *Agents) stream(ctx context.Context, i int, req RunRequest, live *driver.Live) (*RunReply, error) {
	s, err := a.conns[i].NewStream(ctx, &serviceDesc.Streams[0], "/shootout.Agent/Run")
	if err != nil {
		return nil, err
	}
	if err := s.SendMsg(&req); err != nil {
		return nil, err
	}
	if err := s.CloseSend(); err != nil {
		return nil, err
	}
	for {
		var ev RunEvent
		if err := s.RecvMsg(&ev); err != nil {
			return nil, err
		}
		if ev.Reply != nil {
			if ev.Reply.Raw == nil {
				return nil, errors.New("the agent sent no run")
			}
			return ev.Reply, nil
		}
		if ev.Slice != nil {
			if err := live.Add(i, *ev.Slice); err != nil {
				return nil, err
			}
		}
	}
}

// plan splits the clients (contiguous ids), the rate and the operation
// count across the agents and sets the barrier in each agent's clock.
func (a *Agents) plan(ctx context.Context, cfg driver.Config, base RunRequest) ([]RunRequest, []Stat, time.Time, error) {
	n := len(a.conns)
	if cfg.Clients < n {
		return nil, nil, time.Time{}, fmt.Errorf("--agents %d needs at least as many clients, got %d", n, cfg.Clients)
	}
	// the offsets first: each may take seconds, and a barrier set before
	// them could be past when the agents are told it
	offs := make([]time.Duration, n)
	for i := range n {
		off, err := a.offset(ctx, i, 5*time.Second)
		if err != nil {
			return nil, nil, time.Time{}, fmt.Errorf("agent %d: %w", i+1, err)
		}
		offs[i] = off
	}
	start := time.Now().Add(500 * time.Millisecond)
	reqs, stats := make([]RunRequest, n), make([]Stat, n)
	next, opsLeft := 0, cfg.Ops
	for i, off := range offs {
		k := cfg.Clients / n
		if i < cfg.Clients%n {
			k++
		}
		req := base
		req.Clients, req.ClientIDs, req.Agents = cfg.Clients, nil, n
		for j := range k {
			req.ClientIDs = append(req.ClientIDs, next+j)
		}
		next += k
		share := float64(k) / float64(cfg.Clients)
		req.Rate, req.Ops = cfg.Rate*share, int64(float64(cfg.Ops)*share)
		if i == n-1 {
			req.Ops = opsLeft
		}
		opsLeft -= req.Ops
		req.StartUnixNs = start.Add(off).UnixNano()
		req.DurationNs, req.Reps, req.Trim, req.IntervalNs = int64(cfg.Duration), cfg.Reps, cfg.Trim, int64(cfg.Interval)
		req.MaxRetries, req.StallLimitNs, req.InterruptGraceNs = cfg.MaxRetries, int64(cfg.StallLimit), int64(cfg.InterruptGrace)
		reqs[i], stats[i] = req, Stat{Clients: k, ClockOffsetMs: float64(off) / 1e6}
	}
	return reqs, stats, start, nil
}

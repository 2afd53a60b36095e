package run

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"shootout/internal/agent"
	"shootout/internal/child"
	"shootout/internal/driver"
	"shootout/internal/limits"
	"shootout/internal/target"
)

// agentsProbe starts a cell's agent processes (--agents, or one for an
// embedded database under limits) before the window, so their start is
// not measured, and stops them after it.
type agentsProbe struct {
	a     *agent.Agents
	base  agent.RunRequest
	stats []agent.Stat
	// embedded: the agents hold the embedded database's engine inside
	// the cell's cgroups, so they are its server, not its client
	embedded bool
	// cpusets are each agent's own cgroup's CPUs, none without them;
	// groups those cgroups
	cpusets []string
	groups  []*limits.Group
}

// embeddedInAgent is whether the cell's embedded database runs in an
// agent inside the cell's cgroups: whenever it has them (CellLimits made
// them only for a workload agents can run).
func (c *cellRun) embeddedInAgent() bool { return c.t.Embedded() && c.group != nil }

func (p *agentsProbe) start(w *window) error {
	c := w.c
	n := c.cell.Conditions.Agents
	p.embedded = c.embeddedInAgent()
	if p.embedded {
		n = max(n, 1)
	}
	if n == 0 {
		return nil
	}
	if c.cell.Conditions.App != "" {
		// the clients speak to the application, which only this process has
		return fmt.Errorf("--agents: the clients of an application in the loop (--app %s) run in shootout's own process only", c.cell.Conditions.App)
	}
	ep := c.inst.Endpoint()
	if err := agent.Supports(c.w, ep.Protocol, n); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	p.base = agent.RunRequest{Workload: c.cell.Workload, Params: c.cell.Params, Dataset: c.cell.Dataset,
		Seed: c.res.Seed, Endpoint: agent.FromProto(ep, target.ConnSettings(c.inst))}
	var wrap func(int, *exec.Cmd) error
	quota := c.cell.Conditions.AgentCPU
	if p.embedded {
		if quota > 0 {
			return fmt.Errorf("--agent-cpu %g: %s's agent holds its engine inside the cell's cgroups, it is the server, not a client (give --cpus)", quota, c.t.Name())
		}
		wrap = func(_ int, cmd *exec.Cmd) error { return c.group.Wrap(cmd) }
	} else if wrap, err = p.ownGroups(c, n, quota); err != nil {
		return err
	}
	if p.a, err = agent.Start(w.ctx, exe, n, c.Ledger, wrap); err != nil {
		return err
	}
	p.a.CPUQuota = quota
	return nil
}

// ownGroups gives each of n agents a cgroup of its own, a cpuset of one
// of the client's CPUs (every CPU when the server has no cpuset of its
// own), dealt round, so that each agent is pinned as N client machines
// would be, and none moves onto the server's CPUs; nil where this
// machine makes no cgroups (the agents then run where shootout runs, and
// the notes say so), unless a quota was asked: that needs them. A quota
// (--agent-cpu, in cores) makes each a client machine smaller than the
// server's.
func (p *agentsProbe) ownGroups(c *cellRun, n int, quota float64) (func(int, *exec.Cmd) error, error) {
	cpus, err := limits.CPUList(c.lim.CPUs.Client)
	if err != nil {
		return nil, err
	}
	if err := limits.Check(limits.Request{CPUs: fmt.Sprint(cpus[0]), CPUQuota: quota}); err != nil {
		if quota > 0 {
			return nil, fmt.Errorf("--agent-cpu %g: a quota needs a cgroup of each agent's own: %w", quota, err)
		}
		c.f.Limits.Notes = append(c.f.Limits.Notes, "agents not pinned, each runs where shootout runs: "+err.Error())
		return nil, nil
	}
	groups := make([]*limits.Group, n)
	p.groups = groups
	p.cpusets = make([]string, n)
	for i := range n {
		p.cpusets[i] = fmt.Sprint(cpus[i%len(cpus)])
		req := limits.Request{CPUs: p.cpusets[i], CPUQuota: quota}
		if groups[i], err = c.makeGroup(fmt.Sprintf("%s-agent%d", shortID(c.cell.ID), i+1), req); err != nil {
			return nil, err
		}
	}
	note := fmt.Sprintf("each agent in a cgroup of its own on CPUs %s (dealt round)", strings.Join(p.cpusets, ", "))
	if quota > 0 {
		note += fmt.Sprintf(", each with %g of its CPU (--agent-cpu)", quota)
	}
	c.f.Limits.Notes = append(c.f.Limits.Notes, note)
	return func(i int, cmd *exec.Cmd) error { return groups[i].Wrap(cmd) }, nil
}

func (p *agentsProbe) stop(*window) {
	if p.a != nil {
		p.a.Stop()
	}
}

// drive runs the clients: in this process, or in the agents, whose runs
// are merged into one result.
func (w *window) drive() (*driver.Result, error) {
	p := w.agents
	if p == nil || p.a == nil {
		return driver.Run(w.ctx, w.cfg, w.connect)
	}
	before := p.throttled()
	res, stats, err := p.a.Run(w.ctx, w.cfg, p.base)
	after := p.throttled()
	for i := range stats {
		if i < len(p.cpusets) {
			stats[i].Cpuset = p.cpusets[i]
		}
		if p.a.CPUQuota > 0 && i < len(after) {
			stats[i].ThrottledS = (after[i] - before[i]).Seconds()
		}
	}
	p.stats = stats
	return res, err
}

// throttled is how long each agent's cgroup has been held by its CPU
// quota (cpu.stat: v1's throttled_time, v2's throttled_usec), the
// evidence that --agent-cpu applied.
func (p *agentsProbe) throttled() []time.Duration {
	out := make([]time.Duration, len(p.groups))
	for i, g := range p.groups {
		ev := g.Evidence()
		if ns, err := strconv.ParseInt(ev["cpu.stat.throttled_time"], 10, 64); err == nil {
			out[i] = time.Duration(ns)
		} else if us, err := strconv.ParseInt(ev["cpu.stat.throttled_usec"], 10, 64); err == nil {
			out[i] = time.Duration(us) * time.Microsecond
		}
	}
	return out
}

// serverInst is the cell's instance as the window measures it: an
// embedded database's processes are its agents' when they hold it.
func (w *window) serverInst() target.Instance {
	if p := w.agents; p != nil && p.embedded && p.a != nil {
		return agentHeld{w.c.inst, p.a.PIDs()}
	}
	return w.c.inst
}

// agentHeld is an embedded database held by agent processes.
type agentHeld struct {
	target.Instance
	pids []int
}

func (a agentHeld) PIDs() []int { return a.pids }

// recordAgents puts each agent's share in the cell: their CPU is the
// clients', and one saturated agent marks the cell as measuring its
// client. Agents that hold an embedded database are its server: their
// CPU is the server's (its cgroup's), and a busy one is a busy server.
func (w *window) recordAgents() {
	f := &w.c.f.Client
	if w.agents == nil || len(w.agents.stats) == 0 {
		return
	}
	f.Agents = w.agents.stats
	if w.agents.embedded {
		for i := range f.Agents {
			f.Agents[i].Saturated = false
		}
		w.c.f.Server.Note = joinNotes(w.c.f.Server.Note, "embedded: the database runs in the agent process inside the cell's cgroups; these figures are that process's, its clients' included")
		return
	}
	for _, s := range f.Agents {
		f.CPUSeconds += s.CPUCores * w.c.f.Throughput.Seconds
		if s.Saturated {
			f.Saturated = true
		}
	}
	if n := w.c.f.Throughput.Events; n > 0 {
		f.CPUSecondsPerOp = f.CPUSeconds / float64(n)
	}
	if f.Saturated {
		logf(w.c.Log, "an agent was saturated (%.0f%% or more of the CPU it was given, its clients %.0f%% of their time or more on its CPU or waiting for one, or at a fixed rate waking %v late for its schedule): the cell measured its client, not only the server",
			agent.SaturatedCPU*100, agent.SaturatedShare*100, agent.SaturatedLag)
	}
}

// recacheInGroup moves an embedded database's files from shootout's page
// cache into the cell's: its load ran in shootout's process, outside the
// cell's cgroups, and the pages it left cached would be read by the agent
// without being charged to the group, as if there were no --memory. Each
// file is written, dropped from the page cache, and read once by a
// process inside the group, whose cap keeps what fits: the state a
// server's page cache is in after it loaded the data under its cap.
func (c *cellRun) recacheInGroup() error {
	var files []string
	err := filepath.WalkDir(c.inst.DataDir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		files = append(files, path)
		return dropCached(path)
	})
	if err != nil || len(files) == 0 {
		return err
	}
	cmd := exec.Command("cat", files...)
	cmd.Stdout = io.Discard
	if err := c.group.Wrap(cmd); err != nil {
		return err
	}
	return child.Run(cmd)
}

// dropCached writes the file at path and takes it out of the page cache.
func dropCached(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

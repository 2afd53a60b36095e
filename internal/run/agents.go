package run

import (
	"os"

	"shootout/internal/agent"
	"shootout/internal/driver"
	"shootout/internal/target"
)

// agentsProbe starts a cell's agent processes (--agents) before the
// window, so their start is not measured, and stops them after it.
type agentsProbe struct {
	a     *agent.Agents
	base  agent.RunRequest
	stats []agent.Stat
}

func (p *agentsProbe) start(w *window) error {
	c := w.c
	n := c.cell.Conditions.Agents
	if n == 0 {
		return nil
	}
	ep := c.inst.Endpoint()
	if err := agent.Supports(c.w, ep.Protocol); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	p.base = agent.RunRequest{Workload: c.cell.Workload, Params: c.cell.Params, Dataset: c.cell.Dataset,
		Seed: c.res.Seed, Endpoint: agent.FromProto(ep, target.ConnSettings(c.inst))}
	p.a, err = agent.Start(w.ctx, exe, n, c.Ledger)
	return err
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
	res, stats, err := p.a.Run(w.ctx, w.cfg, p.base)
	p.stats = stats
	return res, err
}

// recordAgents puts each agent's share in the cell: their CPU is the
// clients', and one saturated agent marks the cell as measuring its
// client.
func (w *window) recordAgents() {
	f := &w.c.f.Client
	if w.agents == nil || len(w.agents.stats) == 0 {
		return
	}
	f.Agents = w.agents.stats
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
		logf(w.c.Log, "an agent was saturated (over %.0f%% of its CPUs or %v behind its schedule): the cell measured its client, not only the server",
			agent.SaturatedCPU*100, agent.SaturatedLag)
	}
}

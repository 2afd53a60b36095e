package run

import (
	"fmt"

	"shootout/internal/agent"
	"shootout/internal/limits"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// Limits is what a cell's conditions become on its target: the cgroups its
// server gets, where server and client run, the group a neighbour runs in
// alone, and what is not applied and why. The run applies it and --dry-run
// prints it, so the two cannot disagree.
type Limits struct {
	// Server is what the server's cgroups get; Empty when none is made.
	// Its disk caps are deferred: the dataset loads at full speed and
	// the caps hold for the measured window only.
	Server limits.Request
	// CPUs is where the server and shootout run; the zero plan when
	// everything shares every core (embedded and external targets too).
	CPUs limits.CPUPlan
	// Neighbour is the disk cap of a cgroup a fio neighbour runs in
	// alone: for an embedded database, which runs inside shootout and
	// so cannot share a group with fio. Empty otherwise (fio shares the
	// server's group, hence its cap).
	Neighbour limits.Request
	// Unavailable is why this machine cannot make the groups above; the
	// cell fails then, or with --allow-unlimited runs without them.
	Unavailable error
	// Notes say what is not applied and where server and client run.
	Notes []string
	// Node is what each of a cluster's Nodes gets in a group of its own
	// nested in Server's, which then holds Nodes times it; Nodes is 0
	// for a single server.
	Node  limits.Request
	Nodes int
}

// CellLimits maps a cell's conditions to the limits on target t. It only
// reads (the cgroup filesystem, the CPU count): nothing is created.
func CellLimits(t target.Target, c result.Cell) (Limits, error) {
	var l Limits
	if c.Conditions.Link != "" && target.NodesOf(t, c.Conditions.Settings) < 2 {
		return l, fmt.Errorf("--link %s: %s is one server; a link lies between a cluster's nodes", c.Conditions.Link, t.Name())
	}
	req := limits.Request{MemoryBytes: c.Conditions.MemoryBytes, IOPS: c.Conditions.IOPS, BPS: c.Conditions.BPS}
	if c.Conditions.MemoryBytes > 0 {
		// a budget the server cannot live in is refused before anything
		// starts, rather than found out by the OOM killer mid-load
		budget, kept, err := serverBudget(c, c.Conditions.MemoryBytes)
		if err == nil {
			_, _, err = target.SizeFor(t, budget, c.Clients)
			if err != nil && kept != "" {
				err = fmt.Errorf("%w (%s)", err, kept)
			}
		}
		if err != nil {
			return l, fmt.Errorf("--memory %s: %w", target.HumanBytes(c.Conditions.MemoryBytes), err)
		}
	}
	// an embedded database under limits runs in an agent inside the
	// cell's cgroups, as a server does, where agents can run its workload
	inAgent := t.Embedded() && embeddedLimited(c)
	var whyNot error
	if inAgent {
		whyNot = agentsCanRun(t, c)
		inAgent = whyNot == nil
	}
	if t.Managed() && (!t.Embedded() || inAgent) {
		if err := planCPUs(c, &l, &req); err != nil {
			return l, err
		}
	}
	neighbour := limits.NeighbourSpec(c.Conditions.Neighbour)
	hasNeighbour := neighbour != "" && neighbour != "0"
	switch {
	case t.Embedded() && inAgent:
		req.DeferIO = req.IOPS > 0 || req.BPS > 0
		l.Server = req
		if l.Unavailable = limits.Check(req); l.Unavailable == nil {
			l.Notes = append(l.Notes, "the embedded database runs in an agent process inside the cell's cgroups (its engine and its clients), so the limits apply to it as to a server")
			if req.CPUs != "" || req.CPUQuota > 0 {
				l.Notes = append(l.Notes, l.CPUs.String())
			}
		}
	case t.Embedded():
		if !req.Empty() {
			why := "limits not applied: the embedded database runs inside shootout's own process"
			if whyNot != nil {
				why += " (" + whyNot.Error() + ")"
			}
			l.Notes = append(l.Notes, why)
		}
		if hasNeighbour && (req.IOPS > 0 || req.BPS > 0) {
			l.Neighbour = limits.Request{IOPS: req.IOPS, BPS: req.BPS}
			if l.Unavailable = limits.Check(l.Neighbour); l.Unavailable == nil {
				l.Notes = append(l.Notes, "the neighbour (fio) runs alone in a cgroup under the disk cap; the embedded database is not capped")
			}
		}
	case req.Empty():
	case !t.Managed():
		l.Notes = append(l.Notes, "limits not applied: an external server runs outside shootout's control")
	default:
		req.DeferIO = req.IOPS > 0 || req.BPS > 0
		l.Server = req
		if l.Unavailable = limits.Check(req); l.Unavailable == nil && (req.CPUs != "" || req.CPUQuota > 0) {
			l.Notes = append(l.Notes, l.CPUs.String())
		}
	}
	perNode(t, c, &l)
	return l, nil
}

// planCPUs places the server (and shootout) on the CPUs --cpus asks for.
func planCPUs(c result.Cell, l *Limits, req *limits.Request) error {
	cpus, err := limits.PlanCPUs(c.Conditions.CPUs)
	if err != nil {
		return fmt.Errorf("--cpus: %w", err)
	}
	if cpus.Default && cpus.Server != "" {
		// a placement nobody asked for never stops a cell
		if err := limits.Check(limits.Request{CPUs: cpus.Server}); err != nil {
			l.Notes = append(l.Notes, "server and client share every CPU: "+err.Error())
			cpus = limits.CPUPlan{}
		}
	}
	l.CPUs = cpus
	req.CPUs, req.CPUQuota = cpus.Server, cpus.Quota
	return nil
}

// embeddedLimited is whether a cell asks for any limit an embedded
// database can be put under: memory, disk caps, CPUs, a neighbour.
func embeddedLimited(c result.Cell) bool {
	k := c.Conditions
	return k.MemoryBytes > 0 || k.IOPS > 0 || k.BPS > 0 || k.CPUs != "" || (k.Neighbour != "" && k.Neighbour != "0")
}

// agentsCanRun is nil when an agent can run the cell's clients on t.
func agentsCanRun(t target.Target, c result.Cell) error {
	if c.Conditions.App != "" {
		return fmt.Errorf("the clients of --app %s run in shootout's own process", c.Conditions.App)
	}
	w, err := workload.New(c.Workload, c.Params)
	if err != nil {
		return err
	}
	return agent.Supports(w, t.Protocol(), max(c.Conditions.Agents, 1))
}

// perNode gives each of a cluster's nodes the limits one server gets, so
// --memory 1G is 1G per node as on N machines: a group per node nested in
// the cell's, which holds N times them (its counters cover every node).
func perNode(t target.Target, c result.Cell, l *Limits) {
	n := target.NodesOf(t, c.Conditions.Settings)
	if n < 2 || l.Server.Empty() {
		return
	}
	l.Node, l.Nodes = l.Server, n
	l.Server.MemoryBytes *= int64(n)
	l.Server.IOPS *= n
	l.Server.BPS *= int64(n)
	l.Server.CPUQuota *= float64(n)
	l.Notes = append(l.Notes, fmt.Sprintf("each of %d nodes in a cgroup of its own under the cell's limits; the cell's group holds them all (%d times them)", n, n))
}

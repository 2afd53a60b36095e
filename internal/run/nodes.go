package run

import (
	"context"
	"time"

	"shootout/internal/result"
	"shootout/internal/target"
)

// markNodes starts a cluster's per-node window just before the clients
// run (nothing for a single server); a failure is a note, not the cell's.
func (c *cellRun) markNodes(ctx context.Context) {
	if cl, ok := c.inst.(target.Clustered); ok {
		q, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := cl.MarkNodes(q); err != nil {
			c.f.Limits.Notes = append(c.f.Limits.Notes, "nodes' counters not started: "+err.Error())
		}
	}
}

// readNodes records each node's counters as the clients stop.
func (c *cellRun) readNodes(ctx context.Context) {
	cl, ok := c.inst.(target.Clustered)
	if !ok {
		return
	}
	q, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	stats, err := cl.NodeStats(q)
	if err != nil {
		c.f.Limits.Notes = append(c.f.Limits.Notes, "nodes' counters not read: "+err.Error())
	}
	for _, s := range stats {
		c.f.Nodes = append(c.f.Nodes, result.Node{Name: s.Name, Address: s.Address, CPUSeconds: s.CPUSeconds, Counters: s.Counters})
	}
}

// checkNodes adds what must hold on every node of a cluster to the
// invariants.
func (c *cellRun) checkNodes(ctx context.Context) {
	cl, ok := c.inst.(target.Clustered)
	if !ok {
		return
	}
	checked, failures, err := cl.CheckNodes(ctx)
	if err != nil {
		failures = append(failures, "every node: "+err.Error())
	}
	inv := &c.f.Invariants
	inv.Checked = append(inv.Checked, checked...)
	inv.Failures = append(inv.Failures, failures...)
	inv.OK = inv.OK && len(failures) == 0
}

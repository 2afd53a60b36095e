package run

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"shootout/internal/errclass"
	"shootout/internal/limits"
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
			return
		}
		if c.res.Interval > 0 {
			c.nodeSampler = sampleNodes(ctx, cl, nodeSamplePeriod(c.res.Interval, c.res.Duration))
		}
	}
}

// nodeSamplePeriod is how often a cluster's nodes are read: at every
// interval, or ten times in a run of fewer than five intervals (at most
// once a second), so a short run's panel has more than one point (a 10-s
// run at the default 10-s interval had one, and no panel at all).
func nodeSamplePeriod(interval, duration time.Duration) time.Duration {
	if duration > 0 && duration < 5*interval {
		return min(interval, max(time.Second, duration/10))
	}
	return interval
}

// nodeSampler reads every node's figures at each interval of the run,
// so the report can set a node's counters beside the clients' latency
// in the same second.
type nodeSampler struct {
	stop    chan struct{}
	done    chan struct{}
	samples map[string][]result.NodeSample
}

func sampleNodes(ctx context.Context, cl target.Clustered, every time.Duration) *nodeSampler {
	s := &nodeSampler{stop: make(chan struct{}), done: make(chan struct{}), samples: map[string][]result.NodeSample{}}
	start := time.Now()
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			q, cancel := context.WithTimeout(ctx, every)
			stats, _ := cl.NodeStats(q) // a node not read is missing from this sample only
			cancel()
			at := time.Since(start).Seconds()
			for _, n := range stats {
				if n.Unread == "" && n.DiedAt.IsZero() {
					s.samples[n.Name] = append(s.samples[n.Name], result.NodeSample{AtS: at, CPUSeconds: n.CPUSeconds, Counters: n.Counters})
				}
			}
		}
	}()
	return s
}

// end stops the sampling and returns what it read, by node.
func (s *nodeSampler) end() map[string][]result.NodeSample {
	if s == nil {
		return nil
	}
	close(s.stop)
	<-s.done
	return s.samples
}

// readNodes records each node's counters as the clients stop.
func (c *cellRun) readNodes(ctx context.Context) {
	cl, ok := c.inst.(target.Clustered)
	if !ok {
		return
	}
	samples := c.nodeSampler.end()
	c.nodeSampler = nil
	q, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	stats, err := cl.NodeStats(q)
	if err != nil {
		c.f.Limits.Notes = append(c.f.Limits.Notes, "nodes' counters not read: "+err.Error())
	}
	for _, s := range stats {
		n := result.Node{Name: s.Name, Address: s.Address, CPUSeconds: s.CPUSeconds, Deadlocks: s.Deadlocks, Counters: s.Counters, Unread: s.Unread, Samples: samples[s.Name], Levels: s.Levels, Joined: s.Joined}
		n.DiedAt, n.CutAt, n.RestoredAt, n.RejoinedAt = timeOrNil(s.DiedAt), timeOrNil(s.CutAt), timeOrNil(s.RestoredAt), timeOrNil(s.RejoinedAt)
		n.NonPrimaryS = s.NonPrimary.Seconds()
		if l := s.Link; l != nil {
			n.Link = &result.NodeLink{Packets: l.Packets, Bytes: l.Bytes, DroppedQueue: l.DroppedQueue, DroppedBehind: l.DroppedBehind}
			if l.DroppedBehind > 0 {
				c.f.Limits.Notes = append(c.f.Limits.Notes, fmt.Sprintf("the link's relay fell behind and dropped %d of node %s's packets: the relay's limit, not the link's", l.DroppedBehind, s.Name))
			}
		}
		if g := c.nodeGroups[s.Name]; g != nil {
			n.Limits = &result.Limits{Applied: true, Cgroup: fmt.Sprintf("v%d", limits.Version()), Settings: g.Applied, Evidence: g.Evidence()}
		}
		c.f.Nodes = append(c.f.Nodes, n)
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

// splitCertConflicts counts a cluster's conflicts between nodes apart from
// its deadlocks where the server gives both the same error: MariaDB's
// Galera answers a certification failure and a brute-force abort with
// 1213 "Deadlock found", the InnoDB deadlock's code and message (a server
// whose message names wsrep was classed by the dialect already). The
// nodes count the lock cycles their engines broke; the clients' deadlocks
// beyond those were conflicts between nodes. That holds only when every
// node's count was read at the end: a node that died took its deadlocks
// with it, and one not read counts none, so their lock cycles would pass
// for conflicts. Then nothing is moved, and the note it returns says why.
func splitCertConflicts(t *result.Throughput, nodes []result.Node) (note string) {
	if len(nodes) == 0 || t.ErrorsBy[string(errclass.Deadlock)] == 0 {
		return ""
	}
	for _, n := range nodes {
		why := n.Unread
		if n.DiedAt != nil {
			why = "it died in the run"
		}
		if why != "" {
			return fmt.Sprintf("errors_by_class: the clients' deadlocks are not split into deadlock and cert_conflict: node %s's own deadlocks are not known (%s)", n.Name, why)
		}
	}
	local := 0.0
	for _, n := range nodes {
		local += n.Deadlocks
	}
	dl := string(errclass.Deadlock)
	if extra := t.ErrorsBy[dl] - int64(local); extra > 0 {
		t.ErrorsBy[dl] -= extra
		t.ErrorsBy[string(errclass.CertConflict)] += extra
		if t.ErrorsBy[dl] == 0 {
			delete(t.ErrorsBy, dl)
		}
	}
	return ""
}

// wrapNode starts a cluster's node in a group of its own nested in the
// cell's, with the limits one server gets; where the cgroup version does
// not nest them, the node joins the cell's group and the notes say so.
func (c *cellRun) wrapNode(node string, cmd *exec.Cmd) error {
	g, err := c.group.Child(node, c.lim.Node)
	if err != nil {
		c.f.Limits.Notes = append(c.f.Limits.Notes, "node "+node+" shares the cell's group: "+err.Error())
		return c.group.Wrap(cmd)
	}
	c.Ledger.AddCgroups(g.Dirs())
	c.later(func() {
		if err := g.Remove(); err != nil {
			logf(c.Log, "%v", err)
		}
		c.Ledger.ForgetCgroups(g.Dirs())
	})
	if c.nodeGroups == nil {
		c.nodeGroups = map[string]*limits.Group{}
	}
	c.nodeGroups[node] = g
	return g.Wrap(cmd)
}

// nodeDeaths says when each node that died in the run died, from the
// run's start, and how long the clients stood still past that moment:
// the stall a node's death cost the cluster that went on without it.
func nodeDeaths(f *result.File) {
	t := f.Throughput
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.DiedAt == nil {
			continue
		}
		n.DiedAfterS = n.DiedAt.Sub(t.StartedAt).Seconds()
		if t.LongestPauseS > 0 && t.PauseFromS+t.LongestPauseS >= n.DiedAfterS {
			n.StallS = t.LongestPauseS
		}
		f.Limits.Notes = append(f.Limits.Notes, fmt.Sprintf("node %s died %.1f s into the run; the cluster went on without it, the clients stood still for %.1f s at most past then", n.Name, n.DiedAfterS, n.StallS))
	}
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// nodeCuts says when the cell's fault cut a node's links to the others
// and gave them back, from the run's start, how long each node was out
// of the primary component, and how long the clients stood still while
// the cut lasted (the longest pause, if it overlapped the cut).
func nodeCuts(f *result.File) {
	t := f.Throughput
	since := func(at *time.Time) float64 { return at.Sub(t.StartedAt).Seconds() }
	for i := range f.Nodes {
		n := &f.Nodes[i]
		if n.CutAt == nil {
			continue
		}
		n.CutAfterS = since(n.CutAt)
		end, restored := t.Seconds, "the run ended first"
		if n.RestoredAt != nil {
			n.RestoredAfterS = since(n.RestoredAt)
			end, restored = n.RestoredAfterS, fmt.Sprintf("restored %.1f s into the run", n.RestoredAfterS)
		}
		if n.RejoinedAt != nil {
			n.RejoinedAfterS = since(n.RejoinedAt)
			end = n.RejoinedAfterS
			restored += fmt.Sprintf(", back in the primary component at %.1f s", n.RejoinedAfterS)
		}
		if t.LongestPauseS > 0 && t.PauseFromS+t.LongestPauseS >= n.CutAfterS && t.PauseFromS <= end {
			n.StallS = t.LongestPauseS
		}
		var others []string
		for _, o := range f.Nodes {
			if o.Name != n.Name {
				others = append(others, fmt.Sprintf("%s %.1f s", o.Name, o.NonPrimaryS))
			}
		}
		f.Limits.Notes = append(f.Limits.Notes, fmt.Sprintf("node %s cut off from the other nodes %.1f s into the run (%s): it was out of the primary component, refusing its clients, for %.1f s (the others: %s); the clients stood still for %.1f s at most in the cut",
			n.Name, n.CutAfterS, restored, n.NonPrimaryS, strings.Join(others, ", "), n.StallS))
	}
}

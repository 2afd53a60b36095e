package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/netns"
)

// Clustered is an instance of several nodes: what each node's own
// counters say of the measured window, and the invariants that hold on
// every node.
type Clustered interface {
	// MarkNodes starts the window: the counters that are averages start
	// again from here (FLUSH STATUS), the others are read to subtract.
	MarkNodes(ctx context.Context) error
	// NodeStats is each node's counters over the window since MarkNodes:
	// every node, one whose counters could not be read with Unread set.
	NodeStats(ctx context.Context) ([]NodeStats, error)
	// CheckNodes compares what every node holds (checked, failures).
	CheckNodes(ctx context.Context) (checked, failures []string, err error)
}

// NodeStats is one node's figures over the window.
type NodeStats struct {
	Name, Address string
	PID           int
	// CPUSeconds is the node's process's user+system time in the window.
	CPUSeconds float64
	// Deadlocks are the lock cycles the node's own engine broke in the
	// window: of the clients' 1213s, the rest are conflicts between nodes.
	Deadlocks float64
	Counters  map[string]float64
	// Levels are the counters that are levels or averages (a lag, a
	// queue's mean), not counts: a reading is drawn as it is, not as a
	// rate.
	Levels []string
	// DiedAt is when the node's process exited, zero while it runs.
	DiedAt time.Time
	// CutAt and RestoredAt are when the cell's fault cut the node's links
	// to the other nodes and gave them back, RejoinedAt when it was in
	// the primary component again (each zero if not, or not yet).
	CutAt, RestoredAt, RejoinedAt time.Time
	// NonPrimary is how long, from a cut on, the node said it was outside
	// the primary component or not ready: it refused its clients' queries.
	NonPrimary time.Duration
	// Unread is why the node's counters could not be read ("" if they were).
	Unread string
	// Link is what the node sent the others through the link's relay in
	// the window (nil without --link).
	Link *netns.RelayCounts
	// Joined is how the node came to hold the cluster's state at its
	// start, as its log says ("" for a target that does not say).
	Joined string
}

// innodbDeadlocks is InnoDB's count of the deadlocks it detected: a
// Galera node's clients get 1213 for those and, with the same message,
// for a certification failure or a brute-force abort.
const innodbDeadlocks = "Innodb_deadlocks"

// galeraCounted are counters that only grow: the window's figure is the
// difference. galeraAverages are averages Galera keeps since the last
// FLUSH STATUS (or, for the queues, since the status was last read).
var (
	galeraCounted  = []string{"wsrep_local_cert_failures", "wsrep_local_bf_aborts", "wsrep_flow_control_paused_ns", "wsrep_flow_control_sent", "wsrep_flow_control_recv", "wsrep_replicated", "wsrep_received"}
	galeraAverages = []string{"wsrep_flow_control_paused", "wsrep_local_send_queue_avg", "wsrep_local_recv_queue_avg", "wsrep_cert_deps_distance"}
)

type nodeMark struct {
	counters map[string]float64
	cpu      float64
	link     netns.RelayCounts
}

func (in *galeraInstance) Dialect() dialect.Dialect { return Galera{}.Dialect() }

// engine is node n as a MariaDB instance, for InnoDB's write-back.
func (n *galeraNode) engine() *mariadbInstance {
	return &mariadbInstance{managed: n.managed, engine: "innodb", errorLog: n.logFile}
}

// WriteBack waits until every node has applied what the others
// committed, then writes each node's dirty pages within what is left of
// limit.
func (in *galeraInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	deadline := time.Now().Add(limit)
	in.endCut() // the cut node rejoins before the wait; CheckNodes says if the cut failed
	if err := in.waitApplied(ctx, limit); err != nil {
		return WriteBackResult{}, err
	}
	var left []string
	var bytes int64
	for _, n := range in.alive() {
		wb, err := n.engine().WriteBack(ctx, max(time.Until(deadline), time.Second))
		if err != nil {
			return wb, fmt.Errorf("node %s: %w", n.name, err)
		}
		if wb.Left != nil {
			left = append(left, n.name+": "+wb.Left.What)
			bytes += wb.Left.Bytes
		}
	}
	if left == nil {
		return WriteBackResult{}, nil
	}
	return WriteBackResult{Left: &Unwritten{Bytes: bytes, What: strings.Join(left, ", ")}}, nil
}

func (in *galeraInstance) Settle(ctx context.Context) (string, error) {
	wb, err := in.WriteBack(ctx, settleWriteBackLimit)
	if wb.Left != nil {
		return wb.Left.What + " were still unwritten after " + settleWriteBackLimit.String(), err
	}
	return "", err
}

// waitApplied waits until every node's last committed seqno is the
// first node's and nothing waits in a receive queue: after the clients
// stop, the other nodes may still be applying.
func (in *galeraInstance) waitApplied(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var first string
		same := true
		for i, n := range in.alive() {
			st, err := n.status(ctx)
			if err != nil {
				return fmt.Errorf("node %s: %w", n.name, err)
			}
			if i == 0 {
				first = st["wsrep_last_committed"]
			}
			same = same && st["wsrep_last_committed"] == first && st["wsrep_local_recv_queue"] == "0"
		}
		if same {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the nodes had not applied every write set after %v", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (in *galeraInstance) MarkNodes(ctx context.Context) error {
	// the averages start again from here; the counts are subtracted
	err := in.markAll(func(i int) (map[string]float64, error) {
		if _, err := in.nodes[i].db.ExecContext(ctx, "FLUSH STATUS"); err != nil {
			return nil, err
		}
		st, err := in.nodes[i].status(ctx)
		return numbers(st), err
	}, procCPU)
	if err != nil {
		return err
	}
	in.startCut()
	return nil
}

func (in *galeraInstance) NodeStats(ctx context.Context) ([]NodeStats, error) {
	if err := in.windowStarted(); err != nil {
		return nil, err
	}
	var out []NodeStats
	var errs []error
	for i, n := range in.nodes {
		if died := n.diedAt.Load(); died != nil {
			out = append(out, NodeStats{Name: n.name, Address: n.addr, PID: n.proc.PID(), DiedAt: *died, Joined: n.joined})
			continue
		}
		st, err := n.status(ctx)
		if err != nil {
			// listed all the same: a node left out would look like one
			// whose engine broke no lock cycle
			out = append(out, NodeStats{Name: n.name, Address: n.addr, PID: n.proc.PID(), Unread: err.Error(), Joined: n.joined})
			errs = append(errs, fmt.Errorf("node %s: %w", n.name, err))
			continue
		}
		now := numbers(st)
		ns := NodeStats{Name: n.name, Address: n.addr, PID: n.proc.PID(), CPUSeconds: procCPU(n.proc.PID()) - in.marks[i].cpu,
			Deadlocks: now[innodbDeadlocks] - in.marks[i].counters[innodbDeadlocks], Counters: map[string]float64{}, Joined: n.joined}
		for _, k := range galeraCounted {
			ns.Counters[k] = now[k] - in.marks[i].counters[k]
		}
		for _, k := range galeraAverages {
			ns.Counters[k] = now[k]
		}
		ns.Levels = galeraAverages
		out = append(out, ns)
	}
	in.addLinks(out)
	in.cut.fill(out)
	return out, errors.Join(errs...)
}

func numbers(st map[string]string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range st {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[k] = f
		}
	}
	return out
}

// procCPU is a process's user+system seconds (/proc/PID/stat, in the
// kernel's 100 ticks a second).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	sys, _ := strconv.ParseFloat(f[12], 64)
	return (u + sys) / 100
}

// CheckNodes counts every table of the benchmark database on every node,
// after every node applied every write set: a node that holds other
// counts than the first is a failure.
func (in *galeraInstance) CheckNodes(ctx context.Context) (checked, failures []string, err error) {
	if err := in.endCut(); err != nil {
		failures = append(failures, err.Error())
	}
	if err := in.waitApplied(ctx, time.Minute); err != nil {
		return checked, failures, err
	}
	nodes := in.alive()
	if len(nodes) == 0 {
		return checked, failures, errors.New("no node is left")
	}
	rows, err := nodes[0].db.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA='sbtest' ORDER BY TABLE_NAME")
	if err != nil {
		return checked, failures, err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return checked, failures, err
		}
		tables = append(tables, t)
	}
	rows.Close()
	for _, t := range tables {
		counts := make([]int64, len(nodes))
		var each []string
		for i, n := range nodes {
			if err := n.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sbtest.`"+t+"`").Scan(&counts[i]); err != nil {
				return checked, failures, fmt.Errorf("node %s: %w", n.name, err)
			}
			each = append(each, fmt.Sprintf("%s %d", n.name, counts[i]))
		}
		line := fmt.Sprintf("%s rows on every node: %s", t, strings.Join(each, ", "))
		if same(counts) {
			checked = append(checked, line)
		} else {
			failures = append(failures, line)
		}
	}
	return checked, failures, nil
}

func same(xs []int64) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// Stop stops every node at once (the directory goes next, so nothing
// needs writing), then removes the hosts and the directory.
func (in *galeraInstance) Stop(ctx context.Context) error {
	in.endCut()
	return in.stopAll(func(n *galeraNode) error { return n.stop(ctx) })
}

// stop stops a mariadbd node at once: its directory goes next, so
// nothing needs writing.
func (n *galeraNode) stop(ctx context.Context) error {
	if n.db != nil {
		quick, cancel := context.WithTimeout(ctx, 5*time.Second)
		n.db.ExecContext(quick, "SET GLOBAL innodb_fast_shutdown=2")
		cancel()
		n.db.Close()
	}
	if n.proc == nil {
		return nil
	}
	return n.proc.Stop(syscall.SIGTERM, 30*time.Second)
}

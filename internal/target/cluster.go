package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"shootout/internal/netns"
	"shootout/internal/proto"
	"shootout/internal/units"
)

// clusterNode is what every node of a cluster has: its process and root
// pool, its name, its address in its namespace, its log, and when its
// process exited (for the targets that time it).
type clusterNode struct {
	managed
	name, addr, logFile string
	diedAt              atomic.Pointer[time.Time]
}

func (n *clusterNode) base() *clusterNode { return n }

// gone is true once the node's process has exited (timed).
func (n *clusterNode) gone() bool { return n.diedAt.Load() != nil }

// clusterMember is a target's node type: the shared node, and the word a
// death names it with ("galera node n2 was killed ...").
type clusterMember interface {
	base() *clusterNode
	kind() string
}

// cluster is what the cluster targets' instances share: their directory,
// their hosts, their nodes (N, the target's node type) and the clients'
// pool and endpoint, with the Instance methods that read only those.
type cluster[N clusterMember] struct {
	dir       string
	keep      bool
	netID     string
	net       *netns.Net
	forgetNet func(string)
	nodes     []N
	applied   map[string]string
	db        *sql.DB
	ep        proto.Endpoint
	exited    chan struct{}
	exitOnce  sync.Once
	// marks are each node's counters, CPU and link at the window's start
	marks []nodeMark
	// the queries that ask the first node its version and settings
	versionQuery, settingsQuery string
}

func (c *cluster[N]) Endpoint() proto.Endpoint   { return c.ep }
func (c *cluster[N]) DB() *sql.DB                { return c.db }
func (c *cluster[N]) DataDir() string            { return c.nodesDir() }
func (c *cluster[N]) Applied() map[string]string { return c.applied }
func (c *cluster[N]) Exited() <-chan struct{}    { return c.exited }

// nodesDir holds every node's directory: the cluster's data directory.
func (c *cluster[N]) nodesDir() string { return filepath.Join(c.dir, "nodes") }

func (c *cluster[N]) PIDs() []int {
	var pids []int
	for _, n := range c.nodes {
		if b := n.base(); b.proc != nil {
			pids = append(pids, b.proc.PID())
		}
	}
	return pids
}

// Death names the first node that is gone, and how.
func (c *cluster[N]) Death() string {
	for _, n := range c.nodes {
		b := n.base()
		if d := b.death(b.logFile); d != "" {
			return n.kind() + " " + b.name + " " + d
		}
	}
	return ""
}

func (c *cluster[N]) Version(ctx context.Context) (string, error) {
	var v string
	err := c.nodes[0].base().db.QueryRowContext(ctx, c.versionQuery).Scan(&v)
	return v, err
}

func (c *cluster[N]) Settings(ctx context.Context) (map[string]string, error) {
	return querySettings(ctx, c.nodes[0].base().db, c.settingsQuery)
}

// makeHosts makes the cluster's n hosts (netns; rate caps the links
// between nodes, "" for none), the ledger told the network's id first, and
// with --link the relay between them (what names the link in the log).
func (c *cluster[N]) makeHosts(ctx context.Context, opt StartOptions, n int, rate, what string) error {
	c.netID = netns.NewID()
	if opt.AddNet != nil {
		opt.AddNet(c.netID)
	}
	var err error
	if c.net, err = netns.Create(ctx, c.netID, n, rate); err != nil {
		return err
	}
	if opt.Link == "" {
		return nil
	}
	l, err := units.ParseLink(opt.Link)
	if err != nil {
		return fmt.Errorf("--link %w", err)
	}
	if err := c.net.Relay(ctx, netns.Link{Delay: l.Delay, Rate: l.Rate}); err != nil {
		return err
	}
	logf(opt.Log, "%s: %s (a relay holds every packet between nodes)", what, l)
	return nil
}

// privArgs are setpriv's: cred's user, and the parent-death signal set
// again after the change of user (which clears it).
func privArgs(cred *syscall.Credential) []string {
	return []string{fmt.Sprintf("--reuid=%d", cred.Uid), fmt.Sprintf("--regid=%d", cred.Gid), "--clear-groups", "--pdeathsig=KILL"}
}

// startInHost starts node i's server inside its namespace as cred's user:
// ip enters the namespace and execs setpriv, which drops to the user and
// sets the parent-death signal again, then execs the server: one pid
// throughout. It runs in the node's cgroups (opt.WrapNode) or the cell's;
// out, when not nil, takes what it prints.
func (c *cluster[N]) startInHost(opt StartOptions, i int, cred *syscall.Credential, out io.Writer, server string, args ...string) error {
	b := c.nodes[i].base()
	cmd := c.net.Command(i, "setpriv", append(append(privArgs(cred), server), args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	wrap := opt.Wrap
	if opt.WrapNode != nil {
		wrap = func(cmd *exec.Cmd) error { return opt.WrapNode(b.name, cmd) }
	}
	if wrap != nil {
		if err := wrap(cmd); err != nil {
			return err
		}
	}
	var err error
	if b.proc, err = StartProcess(cmd); err != nil {
		return fmt.Errorf("start %s %s: %w", c.nodes[i].kind(), b.name, err)
	}
	return nil
}

// markAll starts every node's window with what read says of node i and
// its process's CPU.
func (c *cluster[N]) markAll(read func(i int) (map[string]float64, error), cpu func(pid int) float64) error {
	c.marks = make([]nodeMark, len(c.nodes))
	for i, n := range c.nodes {
		b := n.base()
		counters, err := read(i)
		if err != nil {
			return fmt.Errorf("node %s: %w", b.name, err)
		}
		c.markNode(i, counters, cpu(b.proc.PID()))
	}
	return nil
}

// markNode starts node i's window: its counters, its CPU, its link.
func (c *cluster[N]) markNode(i int, counters map[string]float64, cpu float64) {
	c.marks[i] = nodeMark{counters: counters, cpu: cpu}
	c.marks[i].link, _ = c.net.RelayCounts(i)
}

// windowStarted refuses NodeStats before MarkNodes.
func (c *cluster[N]) windowStarted() error {
	if len(c.marks) != len(c.nodes) {
		return errors.New("the nodes' window was not started")
	}
	return nil
}

// addLinks adds to each node's figures what it sent through the relay
// since the window began (nothing without --link).
func (c *cluster[N]) addLinks(out []NodeStats) {
	for i := range out {
		out[i].Link = c.linkSince(i)
	}
}

// linkSince is what node i sent through the relay in the window, nil
// without one.
func (c *cluster[N]) linkSince(i int) *netns.RelayCounts {
	l, ok := c.net.RelayCounts(i)
	if !ok {
		return nil
	}
	d := l.Sub(c.marks[i].link)
	return &d
}

// stopAll closes the clients' pool, stops every node at once with stop,
// then removes the hosts and the directory.
func (c *cluster[N]) stopAll(stop func(N) error) error {
	if c.db != nil {
		c.db.Close()
	}
	var wg sync.WaitGroup
	errs := make([]error, len(c.nodes))
	for i, n := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = stop(n)
		}()
	}
	wg.Wait()
	return c.removeHosts(errs)
}

// removeHosts is the end of Stop, once every node is stopped: the relay,
// the hosts (by id: whatever of the network was made, even half) and the
// directory.
func (c *cluster[N]) removeHosts(errs []error) error {
	if c.net != nil {
		c.net.StopRelay()
	}
	if c.netID != "" {
		if err := netns.Remove(c.netID); err != nil {
			errs = append(errs, err)
		} else if c.forgetNet != nil {
			c.forgetNet(c.netID)
		}
	}
	removeServerDir(c.dir, c.keep)
	return errors.Join(errs...)
}

// the MySQL-speaking clusters' version and settings queries
const (
	mysqlVersionQuery  = "SELECT VERSION()"
	mysqlSettingsQuery = "SHOW GLOBAL VARIABLES"
)

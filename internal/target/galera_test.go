package target

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// nodeConn is a connection that says which node it came from.
type nodeConn struct {
	driver.Conn
	node int
}

type fakeNode struct{ i int }

func (f fakeNode) Connect(context.Context) (driver.Conn, error) { return nodeConn{node: f.i}, nil }
func (fakeNode) Driver() driver.Driver                          { return nil }

// TestRoundRobinSpreadsConnections: with writers=all each new connection
// goes to the next node, so N clients land N/nodes on each.
func TestRoundRobinSpreadsConnections(t *testing.T) {
	r := &roundRobin{conns: []driver.Connector{fakeNode{0}, fakeNode{1}, fakeNode{2}}, spread: true}
	per := make([]int, 3)
	for range 9 {
		c, err := r.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		per[c.(nodeConn).node]++
	}
	if per[0] != 3 || per[1] != 3 || per[2] != 3 {
		t.Errorf("9 connections over 3 nodes: %v", per)
	}
}

type deadNode struct{}

func (deadNode) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("connection refused")
}
func (deadNode) Driver() driver.Driver { return nil }

// TestConnectionsPassOverADeadNode: a node that does not answer passes
// its connections on to the next one (writers=all), and the first node's
// clients go to the second when it is gone (writers=one).
func TestConnectionsPassOverADeadNode(t *testing.T) {
	r := &roundRobin{conns: []driver.Connector{fakeNode{0}, deadNode{}, fakeNode{2}}, spread: true}
	per := make([]int, 3)
	for range 9 {
		c, err := r.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		per[c.(nodeConn).node]++
	}
	if per[0] != 3 || per[1] != 0 || per[2] != 6 {
		t.Errorf("9 connections over 3 nodes, the second dead: %v", per)
	}
	one := &roundRobin{conns: []driver.Connector{deadNode{}, fakeNode{1}, fakeNode{2}}}
	if c, err := one.Connect(context.Background()); err != nil || c.(nodeConn).node != 1 {
		t.Errorf("writers=one with the first node dead: %v, %v", c, err)
	}
	all := &roundRobin{conns: []driver.Connector{deadNode{}, deadNode{}}}
	if _, err := all.Connect(context.Background()); err == nil {
		t.Error("no node answers, yet a connection")
	}
}

// TestConnectionsPassOverANodeOutOfPrimary: a node a link cut's watch
// saw outside the primary component gets no new connection while another
// node is in (it would accept one and refuse every query); with every
// node out, they are tried all the same.
func TestConnectionsPassOverANodeOutOfPrimary(t *testing.T) {
	r := &roundRobin{conns: []driver.Connector{fakeNode{0}, fakeNode{1}, fakeNode{2}}, spread: true, out: make([]atomic.Bool, 3)}
	r.out[2].Store(true)
	per := make([]int, 3)
	for range 9 {
		c, err := r.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		per[c.(nodeConn).node]++
	}
	if per[2] != 0 || per[0]+per[1] != 9 {
		t.Errorf("9 connections over 3 nodes, n3 out: %v", per)
	}
	r.out[0].Store(true)
	r.out[1].Store(true)
	if _, err := r.Connect(context.Background()); err != nil {
		t.Errorf("every node out: %v", err)
	}
}

// TestGaleraCutLinkSetting: cut_link names a node of the cluster, when
// and for how long; anything else is refused naming what is valid.
func TestGaleraCutLinkSetting(t *testing.T) {
	c, err := galeraConfig(map[string]string{"cut_link": "n3@2s+500ms"})
	if err != nil {
		t.Fatal(err)
	}
	if c.cut == nil || c.cut.node != 2 || c.cut.at != 2*time.Second || c.cut.dur != 500*time.Millisecond || len(c.server) != 0 || c.cut.String() != "n3@2s+500ms" {
		t.Errorf("parsed %+v, cut %+v", c, c.cut)
	}
	for _, bad := range []string{"n4@1s+1s", "n0@1s+1s", "n3@1s", "n3+1s", "x3@1s+1s", "n3@-1s+1s", "n3@1s+0s", "n3@1+1s"} {
		if _, err := galeraConfig(map[string]string{"cut_link": bad}); err == nil || !strings.Contains(err.Error(), "valid: nI@AT+FOR") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestGaleraSettings: the cluster's own settings are taken out of what
// goes to mariadbd, and a bad one is refused naming what is valid.
func TestGaleraSettings(t *testing.T) {
	c, err := galeraConfig(map[string]string{"nodes": "5", "writers": "all", "link_rate": "1gbit", "innodb_flush_log_at_trx_commit": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if c.nodes != 5 || c.writers != "all" || c.rate != "1gbit" || len(c.server) != 1 || c.server["innodb_flush_log_at_trx_commit"] != "2" {
		t.Errorf("parsed %+v", c)
	}
	if c, _ := galeraConfig(nil); c.nodes != 3 || c.writers != "one" || c.rate != "" {
		t.Errorf("defaults %+v", c)
	}
	for _, bad := range []map[string]string{{"nodes": "1"}, {"nodes": "x"}, {"writers": "some"}} {
		if _, err := galeraConfig(bad); err == nil || !strings.Contains(err.Error(), "valid:") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// TestGaleraSaysWhatItStarts: the dry run and the target list say how
// many servers a cluster's cell starts, from its settings.
func TestGaleraSaysWhatItStarts(t *testing.T) {
	got := StartsWhat(Galera{}, map[string]string{"nodes": "5", "writers": "all"})
	if !strings.Contains(got, "5 private mariadbd") || !strings.Contains(got, "every node round-robin") || !strings.Contains(got, "settings nodes=5, writers=all") {
		t.Errorf("StartsWhat: %q", got)
	}
}

// TestNodeStatsListsEveryNode: a node whose counters cannot be read is in
// the list all the same, saying why, and so is one that died: a node left
// out would pass for one whose engine broke no lock cycle.
func TestNodeStatsListsEveryNode(t *testing.T) {
	self, _ := os.FindProcess(os.Getpid())
	proc := &Process{cmd: &exec.Cmd{Process: self}}
	in := &galeraInstance{}
	for _, name := range []string{"n1", "n2", "n3"} {
		n := &galeraNode{}
		n.managed, n.name = managed{proc: proc, db: sql.OpenDB(deadNode{})}, name
		in.nodes = append(in.nodes, n)
	}
	died := time.Now()
	in.nodes[1].diedAt.Store(&died)
	in.marks = make([]nodeMark, len(in.nodes))
	stats, err := in.NodeStats(context.Background())
	if err == nil || !strings.Contains(err.Error(), "node n3") {
		t.Errorf("error %v, want one naming n1 and n3", err)
	}
	if len(stats) != 3 || stats[0].Unread == "" || stats[1].DiedAt.IsZero() || stats[2].Unread == "" {
		t.Errorf("stats %+v, want n1 and n3 unread, n2 dead", stats)
	}
}

// TestGaleraJoinedByItsLog: how a joiner came in is what its own log
// says (lines as MariaDB 10.11 and Galera 4.23 wrote them here): no
// state transfer only when Galera said none was needed and the node
// synchronized.
func TestGaleraJoinedByItsLog(t *testing.T) {
	const (
		synced  = "2026-11-28  9:40:06 2 [Note] WSREP: Synchronized with group, ready for connections\n"
		noST    = "2026-11-28  9:40:05 2 [Note] WSREP: Cert index reset to 00000000-0000-0000-0000-000000000000:-1 (proto: 11), state transfer needed: no\n"
		needST  = "2026-11-28  9:40:21 2 [Note] WSREP: Cert index reset to 00000000-0000-0000-0000-000000000000:-1 (proto: 11), state transfer needed: yes\n"
		stReq   = "2026-11-28  9:40:21 2 [Note] WSREP: State transfer required: \n\tGroup state: b9fb19cf-eb0f-11f1-8ac1-a2471165dbda:2\n\tLocal state: 00000000-0000-0000-0000-000000000000:-1\n"
		sstDone = "WSREP_SST: [INFO] rsync SST completed on joiner (20261128 09:40:24.792)\n2026-11-28  9:40:25 2 [Note] WSREP: IST received: b9fb19cf-eb0f-11f1-8ac1-a2471165dbda:2\n"
		istDone = "WSREP_SST: [INFO] rsync IST completed on joiner (20261128 09:22:06.618)\n2026-11-28  9:22:13 2 [Note] WSREP: IST received: 268fde2b-eb0d-11f1-be4a-837099a54f7c:4\n"
	)
	for log, want := range map[string]string{
		noST + synced:                     joinedCopy,
		needST + stReq + istDone + synced: joinedIST,
		needST + stReq + sstDone + synced: joinedSST,
		noST:                              joinedUnknown,
		synced:                            joinedUnknown,
		"":                                joinedUnknown,
	} {
		if got := joinedBy(log); got != want {
			t.Errorf("joinedBy(%q) = %q, want %q", log, got, want)
		}
	}
}

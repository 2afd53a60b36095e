package run

import (
	"maps"
	"strings"
	"testing"
	"time"

	"shootout/internal/limits"
	"shootout/internal/result"
)

// TestCertConflictsApartFromDeadlocks: on a cluster whose server answers a
// certification failure with the deadlock's 1213 and message, the clients'
// deadlocks beyond the lock cycles the nodes' engines counted are
// certification conflicts; a single server's are left as they are.
func TestCertConflictsApartFromDeadlocks(t *testing.T) {
	th := result.Throughput{ErrorsBy: map[string]int64{"deadlock": 10, "lock_wait_timeout": 1}}
	splitCertConflicts(&th, []result.Node{{Name: "n1", Deadlocks: 1}, {Name: "n2", Deadlocks: 2}, {Name: "n3"}})
	want := map[string]int64{"deadlock": 3, "cert_conflict": 7, "lock_wait_timeout": 1}
	if !maps.Equal(th.ErrorsBy, want) {
		t.Errorf("cluster: errors by class %v, want %v", th.ErrorsBy, want)
	}
	th = result.Throughput{ErrorsBy: map[string]int64{"deadlock": 4}}
	splitCertConflicts(&th, []result.Node{{Name: "n1"}, {Name: "n2"}})
	if want := map[string]int64{"cert_conflict": 4}; !maps.Equal(th.ErrorsBy, want) {
		t.Errorf("cluster without deadlocks: %v, want %v", th.ErrorsBy, want)
	}
	th = result.Throughput{ErrorsBy: map[string]int64{"deadlock": 4}}
	splitCertConflicts(&th, nil)
	if want := map[string]int64{"deadlock": 4}; !maps.Equal(th.ErrorsBy, want) {
		t.Errorf("single server: %v, want %v", th.ErrorsBy, want)
	}
}

// TestNoSplitWithoutEveryNodesDeadlocks: a node that died took its
// deadlocks with it, and a node whose counters were not read counts none:
// the clients' deadlocks are then left as deadlocks, and a note names the
// node and why, rather than passing its lock cycles off as conflicts.
func TestNoSplitWithoutEveryNodesDeadlocks(t *testing.T) {
	died := time.Now()
	for why, nodes := range map[string][]result.Node{
		"died":     {{Name: "n1", Deadlocks: 1}, {Name: "n2", DiedAt: &died}, {Name: "n3"}},
		"not read": {{Name: "n1", Deadlocks: 1}, {Name: "n2", Unread: "context deadline exceeded"}, {Name: "n3"}},
	} {
		th := result.Throughput{ErrorsBy: map[string]int64{"deadlock": 10}}
		note := splitCertConflicts(&th, nodes)
		if want := map[string]int64{"deadlock": 10}; !maps.Equal(th.ErrorsBy, want) {
			t.Errorf("a node %s: errors by class %v, want %v", why, th.ErrorsBy, want)
		}
		if !strings.Contains(note, "node n2") {
			t.Errorf("a node %s: note %q does not name n2", why, note)
		}
	}
}

// TestEveryNodeGetsTheCellsLimits: a cluster's cell asks for a group per
// node with the limits one server gets (--memory 1G: 1G per node, as on
// N machines), under the cell's group, which holds N times them.
func TestEveryNodeGetsTheCellsLimits(t *testing.T) {
	galera := mustLookup(t, "mariadb-galera")
	c := cellWith(result.Conditions{MemoryBytes: 1 << 30, IOPS: 100, CPUs: "all", Settings: map[string]string{"nodes": "5"}})
	l, err := CellLimits(galera, c)
	if err != nil {
		t.Fatal(err)
	}
	node := limits.Request{MemoryBytes: 1 << 30, IOPS: 100, DeferIO: true}
	if l.Nodes != 5 || l.Node != node || l.Server.MemoryBytes != 5<<30 || l.Server.IOPS != 500 {
		t.Fatalf("5 nodes: %d nodes of %+v under %+v", l.Nodes, l.Node, l.Server)
	}
	l, _ = CellLimits(mustLookup(t, "mariadb-innodb"), c)
	if l.Nodes != 0 || l.Server.MemoryBytes != 1<<30 {
		t.Fatalf("a single server: %d nodes, %+v", l.Nodes, l.Server)
	}
}

// TestLinkOnlyBetweenNodes: --link is a cluster's; a single server's cell
// is refused naming the flag, a cluster's takes it.
func TestLinkOnlyBetweenNodes(t *testing.T) {
	c := cellWith(result.Conditions{Link: "1ms,1gbit"})
	if _, err := CellLimits(mustLookup(t, "mariadb-innodb"), c); err == nil || !strings.Contains(err.Error(), "--link 1ms,1gbit") {
		t.Errorf("a single server with --link: %v", err)
	}
	if _, err := CellLimits(mustLookup(t, "mariadb-galera"), c); err != nil {
		t.Errorf("a cluster with --link: %v", err)
	}
}

// TestACutNodeIsDescribedFromTheRunsStart: a node whose links the cell
// cut gets the cut, its restore and its rejoin in seconds from the run's
// start, the clients' longest pause as its stall when that pause overlaps
// the cut (not when it came before), and a note naming every node's time
// out of the primary component; a cut the run outlasted says so.
func TestACutNodeIsDescribedFromTheRunsStart(t *testing.T) {
	start := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	at := func(s float64) *time.Time { t := start.Add(time.Duration(s * float64(time.Second))); return &t }
	for _, tc := range []struct {
		pauseFrom, pause, stall float64
		restored                *time.Time
		says                    string
	}{
		{3, 5, 5, at(8), "restored 8.0 s into the run, back in the primary component at 9.5 s"},
		{0.2, 0.5, 0, at(8), "for 6.0 s (the others: n1 0.0 s, n2 0.2 s)"},
		{3, 5, 5, nil, "(the run ended first, back in the primary component at 9.5 s)"},
	} {
		f := &result.File{Throughput: result.Throughput{StartedAt: start, Seconds: 10, PauseFromS: tc.pauseFrom, LongestPauseS: tc.pause},
			Nodes: []result.Node{{Name: "n1"}, {Name: "n2", NonPrimaryS: 0.2}, {Name: "n3", CutAt: at(1), RestoredAt: tc.restored, RejoinedAt: at(9.5), NonPrimaryS: 6}}}
		nodeCuts(f)
		n3 := f.Nodes[2]
		if n3.CutAfterS != 1 || n3.RejoinedAfterS != 9.5 || n3.StallS != tc.stall || (tc.restored != nil && n3.RestoredAfterS != 8) {
			t.Errorf("%+v: n3 %+v", tc, n3)
		}
		if f.Nodes[0].CutAfterS != 0 || f.Nodes[0].StallS != 0 {
			t.Errorf("n1 was not cut: %+v", f.Nodes[0])
		}
		if len(f.Limits.Notes) != 1 || !strings.Contains(f.Limits.Notes[0], "node n3 cut off from the other nodes 1.0 s into the run") || !strings.Contains(f.Limits.Notes[0], tc.says) {
			t.Errorf("notes %q, want %q", f.Limits.Notes, tc.says)
		}
	}
}

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/netns"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestGaleraCellOnEveryNode runs a short oltp_read_write cell on a
// three-node Galera cluster with the clients on every node: the cluster
// forms, the cell measures, the invariants hold with the same row counts
// on every node, each node's counters cover the measured window (the
// write sets the nodes replicated, less those that failed certification,
// are the clients' transactions), the nodes speak through the relay of
// --link, the clients' 1213s that no node's
// InnoDB counted as a deadlock are certification conflicts, and the run
// leaves no host behind.
func TestGaleraCellOnEveryNode(t *testing.T) {
	t.Parallel() // its own shootout process, cluster and networks (TestMain says why)
	testenv.RequireTarget(t, target.Galera{})
	work := testenv.WorkDir(t)
	out := filepath.Join(work, "res")
	planFile := filepath.Join(work, "plan.yaml")
	if err := os.WriteFile(planFile, []byte("settings: {mariadb-galera: {writers: all}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", planFile, "--targets", "mariadb-galera", "--workload", "oltp_read_write", "--dataset", "1000",
		"--clients", "8", "--memory", "768M", "--link", "1ms", "--duration", "3s", "--out", out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	cells, _ := filepath.Glob(filepath.Join(out, "cells", "*.json"))
	if len(cells) != 1 {
		t.Fatalf("expected one cell, found %v", cells)
	}
	f, err := result.Read(cells[0])
	if err != nil {
		t.Fatal(err)
	}
	if !f.OK() || !f.Invariants.OK || f.Throughput.Events == 0 {
		t.Fatalf("cell %s, invariants %+v, %d events", f.Status, f.Invariants, f.Throughput.Events)
	}
	if f.Cell.Conditions.Link != "1ms" {
		t.Errorf("the cell's link %q, want 1ms (the nodes' traffic through the relay)", f.Cell.Conditions.Link)
	}
	if len(f.Nodes) != 3 {
		t.Fatalf("expected 3 nodes in the cell, got %+v", f.Nodes)
	}
	everyNode := 0
	for _, c := range f.Invariants.Checked {
		if strings.Contains(c, "rows on every node: n1 ") && strings.Contains(c, "n3 ") {
			everyNode++
		}
	}
	if everyNode == 0 {
		t.Errorf("no row count compared on every node: %v", f.Invariants.Checked)
	}
	checkNodeWindow(t, f)
	checkNodeLimits(t, f, 768<<20)
	checkNodesJoined(t, f)
	if left := leftovers(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("the run left %v", left)
	}
}

func checkNodeWindow(t *testing.T, f *result.File) {
	t.Helper()
	committed, conflicts, deadlocks := 0.0, 0.0, 0.0
	for _, n := range f.Nodes {
		c := n.Counters
		committed += c["wsrep_replicated"] - c["wsrep_local_cert_failures"]
		conflicts += c["wsrep_local_cert_failures"] + c["wsrep_local_bf_aborts"]
		deadlocks += n.Deadlocks
		if c["wsrep_received"] == 0 || n.CPUSeconds <= 0 {
			t.Errorf("node %s received %v write sets, CPU %v s", n.Name, c["wsrep_received"], n.CPUSeconds)
		}
		if n.Link == nil || n.Link.Packets == 0 || n.Link.Bytes == 0 {
			t.Errorf("node %s's packets through --link's relay: %+v", n.Name, n.Link)
		}
		for _, k := range []string{"wsrep_flow_control_paused", "wsrep_local_send_queue_avg", "wsrep_local_recv_queue_avg", "wsrep_cert_deps_distance"} {
			if _, ok := c[k]; !ok {
				t.Errorf("%s has no %s: %v", n.Name, k, c)
			}
		}
	}
	if committed != float64(f.Throughput.Events) {
		t.Errorf("the nodes replicated %v write sets that passed certification in the window, the clients committed %d transactions", committed, f.Throughput.Events)
	}
	by := f.Throughput.ErrorsBy
	if by["cert_conflict"] == 0 || float64(by["cert_conflict"]) > conflicts || float64(by["deadlock"]) > deadlocks {
		t.Errorf("errors by class %v: expected certification conflicts (at most the nodes' %v cert failures and BF aborts), deadlocks at most the nodes' InnoDB %v", by, conflicts, deadlocks)
	}
}

// checkNodesJoined: the first node started the cluster and every other
// joined from a copy of its data directory, with no state transfer, as
// each joiner's own log says (a joiner that fell back to an SST or an
// IST would have cost the cell's start its ~10 s).
func checkNodesJoined(t *testing.T, f *result.File) {
	t.Helper()
	for i, n := range f.Nodes {
		want := "copy of n1's data directory, no state transfer"
		if i == 0 {
			want = "new cluster (--wsrep-new-cluster)"
		}
		if n.Joined != want {
			t.Errorf("node %s joined by %q, want %q", n.Name, n.Joined, want)
		}
	}
}

// checkNodeLimits: under --memory each node had a cgroup of its own
// capped at it, and the cell's group holds them all.
func checkNodeLimits(t *testing.T, f *result.File, capBytes int64) {
	t.Helper()
	want := fmt.Sprint(capBytes)
	for _, n := range f.Nodes {
		if n.Limits == nil || n.Limits.Settings["memory.limit_in_bytes"] != want || n.Limits.Evidence["memory.max_usage_in_bytes"] == "" {
			t.Errorf("node %s's limits %+v, want its own group capped at %s", n.Name, n.Limits, want)
		}
	}
	if got := f.Limits.Settings["memory.limit_in_bytes"]; got != fmt.Sprint(int64(len(f.Nodes))*capBytes) {
		t.Errorf("the cell's group's memory limit %s, want every node's cap together", got)
	}
}

// leftovers are the links and namespaces of the networks shootout pid
// made (netns.NewID: its pid in hex, then a sequence).
func leftovers(pid int) []string {
	var out []string
	for seq := 1; seq < 4; seq++ {
		out = append(out, netns.Leftovers(fmt.Sprintf("%x-%x", pid, seq))...)
	}
	return out
}

// TestKilledShootoutLeavesNoCluster SIGKILLs a run on a Galera cluster
// mid-cell: every node dies with shootout (the parent-death signal that
// setpriv sets again after the change of user), and the next command's
// sweep removes the namespaces, veths and bridge it left.
func TestKilledShootoutLeavesNoCluster(t *testing.T) {
	testenv.RequireTarget(t, target.Galera{})
	out := filepath.Join(testenv.WorkDir(t), "res")
	cmd := exec.Command(bin, "run", "--targets", "mariadb-galera", "--workload", "oltp_read_write", "--dataset", "2000",
		"--duration", "60s", "--interval", "1s", "--out", out)
	nodes := startCluster(t, cmd)
	left := leftovers(cmd.Process.Pid)
	if len(left) < 7 { // three namespaces, three node veths, the bridge (and the clients' pair)
		cmd.Process.Kill()
		t.Fatalf("expected the cluster's hosts, found %v", left)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for _, p := range nodes {
		if !waitGone(p, 10*time.Second) {
			for _, p := range nodes {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("galera node %d outlived a SIGKILLed shootout", p)
		}
	}
	if len(leftovers(cmd.Process.Pid)) == 0 {
		t.Fatal("the hosts were gone before any sweep: the test would prove nothing")
	}
	_, stderr, code := shootout(t, nil, "run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dataset", "100",
		"--duration", "1s", "--out", filepath.Join(testenv.WorkDir(t), "next"))
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("cleanup: removed network %x-", cmd.Process.Pid)) {
		t.Fatalf("the next run after a SIGKILL: exit %d, stderr %q", code, stderr)
	}
	if left := leftovers(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("still there after the sweep: %v", left)
	}
	if dirs, _ := os.ReadDir(filepath.Join(out, "work")); len(dirs) != 0 {
		t.Errorf("cluster directory still there: %v", dirs)
	}
}

// startCluster starts cmd and returns the nodes' pids once the clients run.
func startCluster(t *testing.T, cmd *exec.Cmd) []int {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(stderr)
	for deadline := time.Now().Add(2 * time.Minute); sc.Scan() && time.Now().Before(deadline); {
		var name string
		var pid int
		if n, _ := fmt.Sscanf(sc.Text(), "galera node %s (pid %d,", &name, &pid); n == 2 {
			pids = append(pids, pid)
		}
		if strings.HasPrefix(sc.Text(), "[ 2s ]") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if len(pids) != 3 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("expected 3 nodes' pids, got %v", pids)
	}
	return pids
}

// TestGaleraGoesOnWithoutAKilledNode kills one of three nodes 2 s into a
// cell with the clients on every node: the two left keep a majority and
// go on, the dead node's clients reconnect to the others, the cell
// succeeds with the same rows on the two, and it says when the node died
// and how long the clients stood still.
func TestGaleraGoesOnWithoutAKilledNode(t *testing.T) {
	testenv.RequireTarget(t, target.Galera{})
	work := testenv.WorkDir(t)
	out := filepath.Join(work, "res")
	planFile := filepath.Join(work, "plan.yaml")
	if err := os.WriteFile(planFile, []byte("settings: {mariadb-galera: {writers: all}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", planFile, "--targets", "mariadb-galera", "--workload", "oltp_read_write", "--dataset", "1000",
		"--clients", "6", "--duration", "5s", "--interval", "1s", "--out", out)
	pids := startCluster(t, cmd)
	killed := time.Now()
	if err := syscall.Kill(pids[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run with n2 killed: %v", err)
	}
	cells, _ := filepath.Glob(filepath.Join(out, "cells", "*.json"))
	if len(cells) != 1 {
		t.Fatalf("expected one cell, found %v", cells)
	}
	f, err := result.Read(cells[0])
	if err != nil {
		t.Fatal(err)
	}
	if !f.OK() || !f.Invariants.OK || len(f.Nodes) != 3 {
		t.Fatalf("cell %s, invariants %+v, nodes %+v", f.Status, f.Invariants, f.Nodes)
	}
	n2 := f.Nodes[1]
	if n2.DiedAt == nil || n2.DiedAt.Sub(killed).Abs() > time.Second || n2.DiedAfterS <= 0 || n2.DiedAfterS >= f.Throughput.Seconds {
		t.Errorf("n2 killed %v: the cell says it died at %v, %.1f s into a %.1f s run", killed, n2.DiedAt, n2.DiedAfterS, f.Throughput.Seconds)
	}
	if f.Nodes[0].DiedAt != nil || f.Nodes[2].DiedAt != nil || f.Throughput.Reconnects == 0 {
		t.Errorf("n1 and n3 should live on and n2's clients reconnect: %+v, %d reconnects", f.Nodes, f.Throughput.Reconnects)
	}
	t.Logf("n2 died %.2f s into the run; stall %.2f s; %d events, %d reconnects; %s", n2.DiedAfterS, n2.StallS, f.Throughput.Events, f.Throughput.Reconnects, f.Invariants.Checked)
}

// TestGaleraMinorityStopsWhileCutOff cuts n3 of three nodes off from the
// others 1 s into a cell (the target's cut_link) and gives its links back
// 7 s later, with the clients on every node: n3, alone, leaves the
// primary component and refuses its clients, who connect again to the
// others; n1 and n2 keep a majority (whether they went on is logged);
// n3 rejoins after the restore, and the cell succeeds with the same rows
// on all three and says when the cut was made and undone, how long n3
// was out and how long the clients stood still.
func TestGaleraMinorityStopsWhileCutOff(t *testing.T) {
	testenv.RequireTarget(t, target.Galera{})
	work := testenv.WorkDir(t)
	out := filepath.Join(work, "res")
	planFile := filepath.Join(work, "plan.yaml")
	if err := os.WriteFile(planFile, []byte("settings: {mariadb-galera: {writers: all, cut_link: n3@1s+7s}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, stderr, code := shootout(t, nil, "run", planFile, "--targets", "mariadb-galera", "--workload", "oltp_read_write", "--dataset", "1000",
		"--clients", "6", "--duration", "11s", "--interval", "1s", "--out", out)
	if code != 0 {
		t.Fatalf("run with n3 cut off: exit %d\n%s", code, stderr)
	}
	cells, _ := filepath.Glob(filepath.Join(out, "cells", "*.json"))
	if len(cells) != 1 {
		t.Fatalf("expected one cell, found %v", cells)
	}
	f, err := result.Read(cells[0])
	if err != nil {
		t.Fatal(err)
	}
	if !f.OK() || !f.Invariants.OK || len(f.Nodes) != 3 {
		t.Fatalf("cell %s, invariants %+v, nodes %+v", f.Status, f.Invariants, f.Nodes)
	}
	if f.Target.Applied["wsrep_cut_link"] != "n3@1s+7s" {
		t.Errorf("the cell's applied settings do not record the cut: %v", f.Target.Applied)
	}
	n1, n2, n3 := f.Nodes[0], f.Nodes[1], f.Nodes[2]
	if n3.CutAt == nil || n3.RestoredAt == nil || n3.CutAt.Before(start) ||
		abs(n3.CutAfterS-1) > 0.5 || abs(n3.RestoredAfterS-n3.CutAfterS-7) > 0.5 {
		t.Fatalf("n3 cut at 1 s for 7 s: the cell says cut at %v (%.2f s), restored at %v (%.2f s)", n3.CutAt, n3.CutAfterS, n3.RestoredAt, n3.RestoredAfterS)
	}
	if n3.NonPrimaryS < 1 || n3.NonPrimaryS > f.Throughput.Seconds || n1.NonPrimaryS >= n3.NonPrimaryS || n2.NonPrimaryS >= n3.NonPrimaryS {
		t.Errorf("out of the primary component: n1 %.1f s, n2 %.1f s, n3 %.1f s; want n3 alone out", n1.NonPrimaryS, n2.NonPrimaryS, n3.NonPrimaryS)
	}
	if n1.CutAt != nil || n2.CutAt != nil || n3.StallS <= 0 || f.Throughput.Reconnects == 0 {
		t.Errorf("n1 and n2 not cut, n3's clients to reconnect, a stall in the cut: n1 %v, n2 %v, stall %.1f s, %d reconnects", n1.CutAt, n2.CutAt, n3.StallS, f.Throughput.Reconnects)
	}
	wentOn := 0.0
	for _, iv := range f.Intervals {
		if iv.AtS > n3.CutAfterS+1 && iv.AtS <= n3.RestoredAfterS {
			wentOn += iv.TPS
		}
	}
	// not asserted: in 2 of about 10 runs on 2026-11-28 (one a CI run)
	// the majority stayed still through the cut and after it, though n1
	// and n2 never left the primary component; Galera evicts n3 5-7 s in,
	// so the window is short anyway. Logged, to be found out (the note).
	if wentOn == 0 {
		t.Logf("the majority did not go on while n3 was cut off: %+v", f.Intervals)
	}
	t.Logf("n3 cut %.2f-%.2f s, rejoined %.2f s, out %.1f s (n1 %.1f, n2 %.1f); stall %.2f s; %d events, %d reconnects, errors %v; notes %q",
		n3.CutAfterS, n3.RestoredAfterS, n3.RejoinedAfterS, n3.NonPrimaryS, n1.NonPrimaryS, n2.NonPrimaryS, n3.StallS, f.Throughput.Events, f.Throughput.Reconnects, f.Throughput.ErrorsBy, f.Limits.Notes)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

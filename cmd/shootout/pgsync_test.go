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

	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestPgSyncCellsOnTwoCommitSettings runs a 2 s oltp_read_write cell on a
// primary with a synchronous standby under two synchronous_commit
// settings: the primary runs with the setting and the standby named
// synchronous, the standby's replay reaches the primary's WAL position
// and both hold the same rows, each node's counters cover the window
// (the WAL the primary sent is what the standby received) and are read
// at every interval for the report's panel, and the run leaves no host
// behind.
func TestPgSyncCellsOnTwoCommitSettings(t *testing.T) {
	testenv.RequireTarget(t, target.PgSync{})
	for _, commit := range []string{"remote_write", "remote_apply"} {
		f, pid := runPgSyncCell(t, commit)
		if !f.OK() || !f.Invariants.OK || f.Throughput.Events == 0 {
			t.Fatalf("%s: cell %s, invariants %+v, %d events", commit, f.Status, f.Invariants, f.Throughput.Events)
		}
		if f.Target.Settings["synchronous_commit"] != commit || f.Target.Settings["synchronous_standby_names"] != "standby" {
			t.Errorf("%s: the primary ran with synchronous_commit=%q, synchronous_standby_names=%q", commit,
				f.Target.Settings["synchronous_commit"], f.Target.Settings["synchronous_standby_names"])
		}
		replayed, sameRows := false, false
		for _, c := range f.Invariants.Checked {
			replayed = replayed || strings.HasPrefix(c, "the standby replayed the primary's WAL up to ")
			sameRows = sameRows || strings.Contains(c, "rows on every node: primary ")
		}
		if !replayed || !sameRows {
			t.Errorf("%s: no replay or row count checked on both nodes: %v", commit, f.Invariants.Checked)
		}
		if len(f.Nodes) != 2 || f.Nodes[0].Name != "primary" || f.Nodes[1].Name != "standby" {
			t.Fatalf("%s: nodes %+v", commit, f.Nodes)
		}
		p, s := f.Nodes[0].Counters, f.Nodes[1].Counters
		// the primary's CPU is read in 10-ms ticks: a window of a few
		// transactions (one CI run: 4) can use less than one
		noCPU := f.Nodes[0].CPUSeconds <= 0 && f.Throughput.Events >= 50
		if p["wal_sent_bytes"] <= 0 || p["wal_sent_bytes"] > p["wal_bytes"] || s["wal_received_bytes"] <= 0 || noCPU {
			t.Errorf("%s: primary %v (cpu %v s), standby %v", commit, p, f.Nodes[0].CPUSeconds, s)
		}
		if _, ok := s["replay_lag_bytes"]; !ok {
			t.Errorf("%s: the standby's replay lag is not recorded: %v", commit, s)
		}
		if ss := f.Nodes[1].Samples; len(ss) == 0 || ss[len(ss)-1].Counters["wal_replayed_bytes"] <= 0 || ss[len(ss)-1].Counters["wal_replayed_bytes"] > s["wal_replayed_bytes"] {
			t.Errorf("%s: the standby's samples at each interval %+v, its window's replay %v", commit, ss, s["wal_replayed_bytes"])
		}
		if f.Throughput.ErrorsBy["cert_conflict"] != 0 {
			t.Errorf("%s: a PostgreSQL pair has no certification: %v", commit, f.Throughput.ErrorsBy)
		}
		if left := leftovers(pid); len(left) > 0 {
			t.Errorf("%s: the run left %v", commit, left)
		}
		t.Logf("synchronous_commit=%s: %.1f tps; primary %v; standby %v", commit, f.Throughput.TPS, p, s)
	}
}

func runPgSyncCell(t *testing.T, commit string) (*result.File, int) {
	t.Helper()
	work := testenv.WorkDir(t)
	out := filepath.Join(work, "res")
	planFile := filepath.Join(work, "plan.yaml")
	if err := os.WriteFile(planFile, []byte("settings: {postgres-sync: {synchronous_commit: "+commit+"}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", planFile, "--targets", "postgres-sync", "--workload", "oltp_read_write", "--dataset", "1000",
		"--clients", "4", "--memory", "512M", "--duration", "2s", "--interval", "1s", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
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
	return f, cmd.Process.Pid
}

// TestKilledShootoutLeavesNoStandby SIGKILLs a run on a primary and its
// standby mid-cell: both postmasters die with shootout, and the next
// command's sweep removes the namespaces, veths and bridge left.
func TestKilledShootoutLeavesNoStandby(t *testing.T) {
	testenv.RequireTarget(t, target.PgSync{})
	out := filepath.Join(testenv.WorkDir(t), "res")
	cmd := exec.Command(bin, "run", "--targets", "postgres-sync", "--workload", "oltp_read_write", "--dataset", "1000",
		"--duration", "60s", "--interval", "1s", "--out", out)
	nodes := startNodes(t, cmd, "postgres %s (pid %d,", 2)
	if left := leftovers(cmd.Process.Pid); len(left) < 5 { // two namespaces, two node veths, the bridge
		cmd.Process.Kill()
		t.Fatalf("expected the pair's hosts, found %v", left)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for _, p := range nodes {
		if !waitGone(p, 10*time.Second) {
			for _, p := range nodes {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("postgres %d outlived a SIGKILLed shootout", p)
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
		t.Errorf("the pair's directory still there: %v", dirs)
	}
}

// startNodes starts cmd and returns the pids of the n nodes its log
// names in format (a name, then a pid), once the clients run.
func startNodes(t *testing.T, cmd *exec.Cmd, format string, n int) []int {
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
		if k, _ := fmt.Sscanf(sc.Text(), format, &name, &pid); k == 2 {
			pids = append(pids, pid)
		}
		if strings.HasPrefix(sc.Text(), "[ 2s ]") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if len(pids) != n {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("expected %d nodes' pids, got %v", n, pids)
	}
	return pids
}

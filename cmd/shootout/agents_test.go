package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

func agentsRun(out, duration string) []string {
	return []string{"run", "--targets", "redis", "--workload", "ping", "--clients", "2", "--agents", "2",
		"--duration", duration, "--interval", "1s", "--out", out}
}

// A cell run by two agents holds every operation of both: its count is
// the sum of theirs, and its percentiles come from one histogram that
// holds all of them (the untrimmed count).
func TestAgentsCellIsTheSumOfItsAgents(t *testing.T) {
	tgt, _ := target.Lookup("redis")
	testenv.RequireTarget(t, tgt)
	out := filepath.Join(testenv.WorkDir(t), "res")
	stdout, stderr, code := shootout(t, nil, agentsRun(out, "2s")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	cells, _ := filepath.Glob(filepath.Join(out, "cells", "*.json"))
	if len(cells) != 1 {
		t.Fatalf("cells: %v", cells)
	}
	b, _ := os.ReadFile(cells[0])
	var f result.File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, a := range f.Client.Agents {
		if a.Clients != 1 || a.Events == 0 || a.CPUCores <= 0 {
			t.Errorf("agent %+v: want one client, events and CPU", a)
		}
		sum += a.Events
	}
	op := f.Ops["ping"]
	if f.Cell.Conditions.Agents != 2 || len(f.Client.Agents) != 2 || f.Throughput.Events != sum || op.Untrimmed.Count != sum || op.P99Ms <= 0 {
		t.Fatalf("agents %d %+v: events %d, ping's histogram %d, p99 %v; want the agents' sum %d",
			f.Cell.Conditions.Agents, f.Client.Agents, f.Throughput.Events, op.Untrimmed.Count, op.P99Ms, sum)
	}
	if !strings.Contains(stdout+stderr, "] thds: 2 tps:") {
		t.Errorf("no interval line for the cell's two clients:\n%s", stderr)
	}
}

// A SIGKILLed run takes its agents with it (their parent-death signal).
func TestKilledOwnerLeavesNoAgent(t *testing.T) {
	tgt, _ := target.Lookup("redis")
	testenv.RequireTarget(t, tgt)
	cmd := exec.Command(bin, agentsRun(filepath.Join(testenv.WorkDir(t), "res"), "60s")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var agents []int
	for end := time.Now().Add(30 * time.Second); len(agents) < 2 && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		agents = agents[:0]
		for _, p := range metrics.Descendants(cmd.Process.Pid) {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline"); strings.Contains(string(b), "agent\x00--listen") {
				agents = append(agents, p)
			}
		}
	}
	ledgered := ledgerServers(cmd.Process.Pid, agents)
	cmd.Process.Kill()
	cmd.Wait()
	if len(agents) < 2 {
		t.Fatalf("found agents %v under the run", agents)
	}
	if _, err := os.Stat(limits.StateDir); err == nil && !ledgered {
		t.Errorf("the run's ledger does not record its agents %v for the sweep", agents)
	}
	for _, p := range agents {
		if !waitGone(p, 2*time.Second) {
			for _, p := range agents {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("agent %d outlived a SIGKILLed run", p)
		}
	}
}

// ledgerServers is whether owner's ledger records every one of pids
// among its servers (within a second: it is written just after each
// starts).
func ledgerServers(owner int, pids []int) bool {
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(limits.StateDir, strconv.Itoa(owner)+".json"))
		var st struct {
			Servers []struct {
				PID int `json:"pid"`
			} `json:"servers"`
		}
		if json.Unmarshal(b, &st) != nil {
			continue
		}
		found := 0
		for _, p := range pids {
			for _, s := range st.Servers {
				if s.PID == p {
					found++
				}
			}
		}
		if found == len(pids) && found > 0 {
			return true
		}
	}
	return false
}

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

// Client machines smaller than the server's (--agent-cpu, a quota on each
// agent's own cgroup): one agent held to a tenth of a CPU is the cell's
// limit, and marked so; three such agents drive more. On Redis the
// server is never the limit at these quotas, so the three are marked
// too (docs/cluster-jobs.md has MariaDB's point selects, where they
// are not).
func TestAgentCPUQuotaSaturatesOneAgentAndThreeDriveMore(t *testing.T) {
	tgt, _ := target.Lookup("redis")
	testenv.RequireTarget(t, tgt)
	if err := limits.Check(limits.Request{CPUs: "0", CPUQuota: 0.1}); err != nil {
		t.Skipf("no cgroups for the agents' quota here: %v", err)
	}
	out := filepath.Join(testenv.WorkDir(t), "res")
	_, stderr, code := shootout(t, nil, "run", "--targets", "redis", "--workload", "ping", "--clients", "12", "--agents", "1,3",
		"--agent-cpu", "0.1", "--duration", "2s", "--interval", "0s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	cells, _ := filepath.Glob(filepath.Join(out, "cells", "*.json"))
	byAgents := map[int]*result.File{}
	for _, c := range cells {
		b, _ := os.ReadFile(c)
		var f result.File
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if f.Cell.Conditions.AgentCPU != 0.1 || !strings.Contains(strings.Join(f.Limits.Notes, "; "), "each with 0.1 of its CPU") {
			t.Errorf("%s: agent_cpu %v, notes %q: want the quota in its conditions and notes", c, f.Cell.Conditions.AgentCPU, f.Limits.Notes)
		}
		byAgents[len(f.Client.Agents)] = &f
	}
	one, three := byAgents[1], byAgents[3]
	if one == nil || three == nil {
		t.Fatalf("cells %v: want one with 1 agent and one with 3", cells)
	}
	a := one.Client.Agents[0]
	t.Logf("1 agent: %.0f tps, %.3f cores, share %.2f, saturated %v; 3 agents: %.0f tps, %+v",
		one.Throughput.TPS, a.CPUCores, a.CPUShare, one.Client.Saturated, three.Throughput.TPS, three.Client.Agents)
	// without the quota one agent took 0.27-0.31 of the loaded CPU 0, and
	// was not marked
	if a.CPUCores > 0.2 || a.ThrottledS <= 0 || !a.Saturated || !one.Client.Saturated {
		t.Errorf("1 agent: %.3f cores, throttled %.2f s, saturated %v (cell %v): want at most its quota (and a little), held by it, and marked",
			a.CPUCores, a.ThrottledS, a.Saturated, one.Client.Saturated)
	}
	// the three drive more, by less than three times: on the one client
	// CPU they share with shootout, each throttled agent spends more per
	// operation than one alone (1.61x on 2026-11-28 in the morning, 1.24x
	// in a fresh-clone CI that afternoon, which failed the 1.3x asked
	// then: two 2-s cells cannot pin the ratio, only that it is above 1)
	if three.Throughput.TPS < 1.1*one.Throughput.TPS {
		t.Errorf("3 agents at 0.1 CPU each: %.0f tps, 1 agent %.0f: want the three to drive more", three.Throughput.TPS, one.Throughput.TPS)
	}
}

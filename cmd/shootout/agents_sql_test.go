package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// sqlCell runs one oltp_point_select cell at a fixed rate on a private
// MariaDB with --agents agents (0: shootout's own process) and returns
// its file.
func sqlCell(t *testing.T, agents int) *result.File {
	t.Helper()
	out := filepath.Join(testenv.WorkDir(t), fmt.Sprintf("agents%d-%d", agents, len(t.Name())))
	os.RemoveAll(out)
	_, stderr, code := shootout(t, nil, "run", "--targets", "mariadb-innodb", "--workload", "oltp_point_select", "--dataset", "1000",
		"--clients", "2", "--agents", fmt.Sprint(agents), "--rate", "2000", "--duration", "2s", "--interval", "0s", "--out", out)
	if code != 0 {
		t.Fatalf("--agents %d: exit %d\n%s", agents, code, stderr)
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
	return &f
}

// SQL clients run in agents, each with a pool of its own: the cell's
// count is the sum of the agents', and its tps is one process's within
// the noise of the repeats (alternated, so the host's load drifts over
// both alike). The cell is one a process can drive, 2,000 point selects
// a second: in a closed loop this shared two-core host's load moved one
// process's tps by up to 5 times between two runs a minute apart. Where cgroups can be made, each agent runs in one of its
// own, pinned to one CPU.
func TestAgentsRunSQLClients(t *testing.T) {
	tgt, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tgt)
	var one, two []float64
	for range 2 {
		one = append(one, sqlCell(t, 0).Throughput.TPS)
		f := sqlCell(t, 2)
		var sum int64
		pinned := limits.Check(limits.Request{CPUs: "0"}) == nil
		for _, a := range f.Client.Agents {
			if a.Clients != 1 || a.Events == 0 {
				t.Errorf("agent %+v: want one client and its events", a)
			}
			if pinned && (a.Cpuset == "" || a.CPUs != 1) {
				t.Errorf("agent %+v: want a cgroup of its own on one CPU", a)
			}
			sum += a.Events
		}
		if len(f.Client.Agents) != 2 || f.Throughput.Events != sum || f.Ops["event"].Untrimmed.Count != sum {
			t.Fatalf("agents %+v: events %d, histogram %d; want the agents' sum %d", f.Client.Agents, f.Throughput.Events, f.Ops["event"].Untrimmed.Count, sum)
		}
		two = append(two, f.Throughput.TPS)
	}
	// each pair ran back to back: their ratios drift less than the
	// host's load, and how far they differ is the noise
	r0, r1 := two[0]/one[0], two[1]/one[1]
	ratio, noise := (r0+r1)/2, max(0.1, math.Abs(r0-r1))
	t.Logf("tps one process %.0f, two agents %.0f: ratios %.2f %.2f, tolerated ±%.0f%%", one, two, r0, r1, noise*100)
	if math.Abs(ratio-1) > noise {
		t.Errorf("two agents' tps %.0f against one process's %.0f: ratio %.2f, past the noise ±%.0f%%", two, one, ratio, noise*100)
	}
}

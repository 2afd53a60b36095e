package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestSpiderCellThroughTheHead runs a 2 s oltp_read_write cell through a
// Spider head over two InnoDB backends: the workload's table is sharded
// by its key, each backend holds about half the rows and together all of
// them, the invariants hold through the head (its deletes counted), the
// backends' counters show the head's round trips to each, and the run
// leaves no host behind.
func TestSpiderCellThroughTheHead(t *testing.T) {
	t.Parallel() // its own shootout process, nodes and networks; it asserts counts, not speed (TestMain says why)
	testenv.RequireTarget(t, target.Spider{})
	out := filepath.Join(testenv.WorkDir(t), "res")
	cmd := exec.Command(bin, "run", "--targets", "mariadb-spider", "--workload", "oltp_read_write", "--dataset", "1000",
		"--clients", "4", "--memory", "384M", "--duration", "2s", "--out", out)
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
	if !f.OK() || !f.Invariants.OK || f.Throughput.Events == 0 {
		t.Fatalf("cell %s, invariants %+v, %d events", f.Status, f.Invariants, f.Throughput.Events)
	}
	var head, sum, b1, b2 int64
	for _, c := range f.Invariants.Checked {
		if strings.HasPrefix(c, "sbtest1 rows through the head") {
			fmt.Sscanf(c, "sbtest1 rows through the head %d, the backends' sum %d: b1 %d, b2 %d", &head, &sum, &b1, &b2)
		}
	}
	if head < 1000 || sum != head || b1+b2 != head || b1 < head*2/5 || b2 < head*2/5 {
		t.Errorf("rows through the head %d, backends b1 %d and b2 %d (sum %d): want about half on each: %v", head, b1, b2, sum, f.Invariants.Checked)
	}
	if len(f.Nodes) != 3 || f.Nodes[0].Name != "head" {
		t.Fatalf("nodes %+v", f.Nodes)
	}
	for _, n := range f.Nodes[1:] {
		if n.Counters["Questions"] <= 0 || n.Counters["Com_select"] <= 0 || n.CPUSeconds <= 0 {
			t.Errorf("backend %s: the head's round trips %v, CPU %v s", n.Name, n.Counters, n.CPUSeconds)
		}
	}
	if left := leftovers(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("the run left %v", left)
	}
	t.Logf("%.1f tps; %v", f.Throughput.TPS, f.Invariants.Checked)
}

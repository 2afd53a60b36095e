package run

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
)

// A server CPU whose counter's unit is as long as the window is null in
// the cell's file, with a note why; a resolved one is a figure.
func TestServerCPUUnresolvedIsNull(t *testing.T) {
	var f result.File
	u := metrics.Report{Measured: true, ServerCPUSeconds: 0, ServerCPUSource: "/proc/PID/stat",
		ServerCPUResolution: 10 * time.Millisecond, Window: 8 * time.Millisecond}
	fillServer(&f, u, 40, pidsOnly{pids: []int{1}})
	b, _ := json.Marshal(f.Server)
	if !strings.Contains(string(b), `"cpu_s":null`) || !strings.Contains(string(b), `"cpu_s_per_op":null`) ||
		!strings.Contains(f.Server.Note, "server CPU n/a") || f.Server.CPUResolutionS != 0.01 {
		t.Errorf("unresolved: %s", b)
	}
	u = metrics.Report{Measured: true, ServerCPUSeconds: 0.004, ServerCPUSource: "cgroup cpuacct.usage",
		ServerCPUResolution: time.Nanosecond, ServerCPUResolved: true, Window: 8 * time.Millisecond}
	fillServer(&f, u, 40, pidsOnly{pids: []int{1}})
	if perOp, ok := f.Server.CPUPerOp(); !ok || perOp != 0.0001 || f.Server.CPUSource != "cgroup cpuacct.usage" {
		t.Errorf("resolved: %+v", f.Server)
	}
}

// pidsOnly is an instance fillServer can read the PIDs of, and no more.
type pidsOnly struct {
	target.Instance
	pids []int
}

func (p pidsOnly) PIDs() []int { return p.pids }

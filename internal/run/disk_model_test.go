package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"shootout/internal/disk"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestCellsOnAModelledHDD runs each kind of server with its data on the
// hdd model: the cells finish, say which disk they ran on and what it was
// sent, commits pay the drive's flushes (InnoDB does far fewer
// transactions than on the raw disk), and nothing of the disk is left.
func TestCellsOnAModelledHDD(t *testing.T) {
	requireLimits(t)
	if err := disk.Check(); err != nil {
		t.Fatal(err)
	}
	targets := []string{"mariadb-innodb", "postgres", "sqlite"}
	for _, name := range targets {
		tg, _ := target.Lookup(name)
		testenv.RequireTarget(t, tg)
	}
	before, _ := os.ReadDir(disk.Root)
	out := testenv.WorkDir(t)
	tps := map[string]float64{}
	// the cells side by side, each server on every core (--cpus all: a
	// cell placed on its own CPUs moves the whole test process, which
	// cells at once cannot share); sharing the CPUs slows the raw disk's
	// InnoDB, bound by the CPU, at least as much as the hdd's, bound by
	// its flushes, so the comparison below is no easier than run alone
	// (side by side under load 9: 552 tps raw, 53 on the hdd)
	var mu sync.Mutex
	t.Run("cells", func(t *testing.T) {
		for _, mt := range [][2]string{{"none", targets[0]}, {"hdd", targets[0]}, {"hdd", targets[1]}, {"hdd", targets[2]}} {
			t.Run(mt[0]+"/"+mt[1], func(t *testing.T) {
				t.Parallel()
				if f := modelCell(t, out, mt[0], mt[1]); f != nil {
					mu.Lock()
					tps[mt[0]+" "+mt[1]] = f.Throughput.TPS
					mu.Unlock()
				}
			})
		}
	})
	if raw, hdd := tps["none mariadb-innodb"], tps["hdd mariadb-innodb"]; raw == 0 || hdd == 0 {
		t.Errorf("no InnoDB figure to compare: %v", tps)
	} else if hdd*2 > raw {
		t.Errorf("InnoDB did %.1f tps on the hdd model and %.1f on the raw disk: a drive that flushes at ~120/s should at least halve it", hdd, raw)
	}
	after, _ := os.ReadDir(disk.Root)
	if len(after) > len(before) {
		t.Errorf("disk directories left in %s: %v", disk.Root, after)
	}
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), disk.Root+"/cell-") {
		t.Errorf("a modelled disk is still mounted")
	}
}

// modelCell runs one cell of target on the disk model and checks what it
// says of the disk; nil when it failed.
func modelCell(t *testing.T, out, model, name string) *result.File {
	t.Helper()
	p := &plan.Plan{Targets: []string{name}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"10000"},
		Clients: []int{2}, Duration: "3s", Interval: "0s", Disk: model, CPUs: "all", Params: map[string]string{"tables": "1"}}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{OutDir: filepath.Join(out, model, name), Log: logWriter(t)}
	f := r.Cell(context.Background(), res, res.Cells[0])
	if !f.OK() {
		t.Errorf("%s on %s: %s", name, model, f.Status)
		return nil
	}
	ev := f.Limits.Evidence
	if model == "none" {
		if ev["disk.model"] != "" {
			t.Errorf("--disk none put the data on a model: %v", ev)
		}
		t.Logf("%s on the raw disk: %.1f tps", name, f.Throughput.TPS)
		return f
	}
	if ev["disk.model"] != "hdd" || !strings.Contains(strings.Join(f.Limits.Notes, " "), "modelled hdd disk") {
		t.Errorf("%s: the cell does not say it ran on the hdd model: %v %v", name, ev, f.Limits.Notes)
		return nil
	}
	if n, _ := strconv.Atoi(ev["disk.flushes"]); n == 0 {
		t.Errorf("%s: no flush reached the drive: %v", name, ev)
	}
	// the load went to the device with the model off: counted in all, not in the run's
	run, _ := strconv.ParseInt(ev["disk.write_bytes"], 10, 64)
	all, _ := strconv.ParseInt(ev["disk.all_write_bytes"], 10, 64)
	if all <= run {
		t.Errorf("%s: the load's writes are not set apart from the run's: %d bytes in all, %d with the model on", name, all, run)
	}
	// the bytes written are the loop device's: the data was on it
	if loop := strings.TrimPrefix(ev["disk.loop"], "/dev/"); !strings.HasPrefix(f.Server.BytesSource, "device "+loop+" ") {
		t.Errorf("%s: bytes counted on %q, not on the modelled disk's %s", name, f.Server.BytesSource, loop)
	}
	t.Logf("%s on hdd: %.1f tps, %s flushes, %s writes, %s late", name, f.Throughput.TPS, ev["disk.flushes"], ev["disk.writes"], ev["disk.late"])
	return f
}

package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"shootout/internal/disk"
	"shootout/internal/plan"
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
	for _, model := range []string{"none", "hdd"} {
		ts := targets
		if model == "none" {
			ts = targets[:1]
		}
		p := &plan.Plan{Targets: ts, Workloads: []string{"oltp_read_write"}, Datasets: []string{"10000"},
			Clients: []int{2}, Duration: "3s", Interval: "0s", Disk: model, Params: map[string]string{"tables": "1"}}
		res, err := p.Resolve(plan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := &Runner{OutDir: filepath.Join(out, model), Log: logWriter(t)}
		for _, cell := range res.Cells {
			f := r.Cell(context.Background(), res, cell)
			if !f.OK() {
				t.Fatalf("%s on %s: %s", cell.Target, model, f.Status)
			}
			tps[model+" "+cell.Target] = f.Throughput.TPS
			ev := f.Limits.Evidence
			if model == "none" {
				if ev["disk.model"] != "" {
					t.Fatalf("--disk none put the data on a model: %v", ev)
				}
				continue
			}
			if ev["disk.model"] != "hdd" || !strings.Contains(strings.Join(f.Limits.Notes, " "), "modelled hdd disk") {
				t.Fatalf("%s: the cell does not say it ran on the hdd model: %v %v", cell.Target, ev, f.Limits.Notes)
			}
			if n, _ := strconv.Atoi(ev["disk.flushes"]); n == 0 {
				t.Errorf("%s: no flush reached the drive: %v", cell.Target, ev)
			}
			// the load went to the device with the model off: counted in all, not in the run's
			run, _ := strconv.ParseInt(ev["disk.write_bytes"], 10, 64)
			all, _ := strconv.ParseInt(ev["disk.all_write_bytes"], 10, 64)
			if all <= run {
				t.Errorf("%s: the load's writes are not set apart from the run's: %d bytes in all, %d with the model on", cell.Target, all, run)
			}
			// the bytes written are the loop device's: the data was on it
			if loop := strings.TrimPrefix(ev["disk.loop"], "/dev/"); !strings.HasPrefix(f.Server.BytesSource, "device "+loop+" ") {
				t.Errorf("%s: bytes counted on %q, not on the modelled disk's %s", cell.Target, f.Server.BytesSource, loop)
			}
			t.Logf("%s on hdd: %.1f tps, %s flushes, %s writes, %s late", cell.Target, f.Throughput.TPS, ev["disk.flushes"], ev["disk.writes"], ev["disk.late"])
		}
	}
	if raw, hdd := tps["none mariadb-innodb"], tps["hdd mariadb-innodb"]; hdd*2 > raw {
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

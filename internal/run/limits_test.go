package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"shootout/internal/agent"
	"strconv"
	"strings"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

func TestMain(m *testing.M) {
	limits.MaybeExec() // limited servers start through this test binary
	agent.MaybeServe() // and agents: an embedded database under limits runs in one
	runApartChild()    // a plan run in a process of its own (runPlanApart)
	os.Exit(m.Run())
}

func requireLimits(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real servers under limits")
	}
	tg, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tg)
	if err := limits.Check(limits.Request{MemoryBytes: 1 << 30, IOPS: 100}); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true and cgroups cannot be used: %v", err)
		}
		t.Skip(err)
	}
}

func runOne(t *testing.T, p *plan.Plan) *result.File {
	t.Helper()
	f := cellOf(t, p)
	if !f.OK() {
		t.Fatalf("cell failed: %s", f.Status)
	}
	return f
}

// cellOf runs the plan's first cell, whatever its outcome.
func cellOf(t *testing.T, p *plan.Plan) *result.File {
	t.Helper()
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: limits.Open()}
	defer r.Ledger.Close()
	return r.Cell(context.Background(), res, res.Cells[0])
}

// TestMemoryCapLimitsThePageCache: with data larger than the cap, point
// selects must read from disk; with no cap the same data is served from
// memory after the load. 500k rows (121 MB of tables) under 176M, the
// least the server's sizing takes, where the buffer pool and page cache
// get about 55M. The cgroup v2 guest, an emulated machine that loads
// under 8,000 rows/s, loads 400k (97 MB, still past what the cap leaves
// for data) and skips the uncapped cell, which shows the server, not the
// cgroups.
func TestMemoryCapLimitsThePageCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 500k rows twice")
	}
	requireLimits(t)
	rows := "500000"
	if guestV2() {
		rows = "400000"
	}
	const capMiB = 176
	base := plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{rows},
		Clients: []int{4}, Duration: "4s", Interval: "0s"}
	capped := base
	capped.Memory = strconv.Itoa(capMiB) + "M"
	limited := runOne(t, &capped)
	ev := limited.Limits.Evidence
	if want := fmt.Sprintf("v%d", limits.Version()); limited.Limits.Cgroup != want {
		t.Errorf("the cell says cgroup %q, this machine has %s", limited.Limits.Cgroup, want)
	}
	// v1's names, or v2's (memory.max, memory.peak)
	if !limited.Limits.Applied || (ev["memory.limit_in_bytes"] != strconv.Itoa(capMiB<<20) && ev["memory.max"] != strconv.Itoa(capMiB<<20)) {
		t.Fatalf("memory cap not applied: %+v", limited.Limits)
	}
	peak := ev["memory.max_usage_in_bytes"]
	if peak == "" {
		peak = ev["memory.peak"]
	}
	if mx, _ := strconv.ParseInt(peak, 10, 64); mx <= 0 || mx > capMiB<<20 {
		t.Fatalf("peak usage %d outside (0, %dM]", mx, capMiB)
	}
	perOpCapped := limited.Server.ReadBytesPerOp
	t.Logf("server read bytes per point select, %s rows under %dM: %.0f", rows, capMiB, perOpCapped)
	if perOpCapped < 1000 {
		t.Fatalf("read bytes/op %.0f capped: the cap should force reads from disk", perOpCapped)
	}
	if guestV2() {
		return
	}
	free := runOne(t, &base)
	if perOpFree := free.Server.ReadBytesPerOp; perOpFree > perOpCapped/10 {
		t.Fatalf("read bytes/op %.0f free vs %.0f capped: without the cap the data is read from memory", perOpFree, perOpCapped)
	}
}

// guestV2 is true on a cgroup v2 kernel (make test-cgroup2's guest, an
// emulated machine where a cell's load takes minutes): there a cell
// without limits, which shows the server and not the cgroups, is left
// to the v1 host's run of the same test.
func guestV2() bool { return limits.Version() == 2 }

// TestIOPSCapBoundsServicedIOs: no IO rate a cell records passes its
// cap, the write-back's IOs included (over the run's seconds alone they
// did: the write-back's IOs are counted, its seconds were not).
func TestIOPSCapBoundsServicedIOs(t *testing.T) {
	requireLimits(t)
	const iops = 100
	for _, tg := range []string{"mariadb-innodb", "postgres"} {
		t.Run(tg, func(t *testing.T) {
			tgt, _ := target.Lookup(tg)
			testenv.RequireTarget(t, tgt)
			f := runOne(t, &plan.Plan{Targets: []string{tg}, Workloads: []string{"oltp_update_non_index"}, Datasets: []string{"10000"},
				Clients: []int{4}, Duration: "4s", Interval: "0s", IOPS: iops})
			if f.Server.IOOpsPerOp <= 0 || f.Server.ContextSwitchesPerOp <= 0 {
				t.Fatalf("io ops / context switches per op not measured: %+v", f.Server)
			}
			if fin := f.Server.WriteBackFinished; fin == nil || !*fin || f.Server.WriteBackS <= 0 {
				t.Fatalf("write-back %.1f s, finished %v: a small set's write-back must finish", f.Server.WriteBackS, fin)
			}
			rates := 0
			for k, v := range f.Limits.Evidence {
				if !strings.HasPrefix(k, "io_") || !strings.Contains(k, "_per_s") {
					continue
				}
				rate, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s = %q", k, v)
				}
				limit := float64(iops) // each direction has its own cap
				if strings.HasPrefix(k, "io_serviced") {
					limit *= 2
				}
				t.Logf("%s: %.1f under %d read + %d write IOPS (run %.1f s, write-back %.1f s, %.0f tps)", k, rate, iops, iops, f.Throughput.Seconds, f.Server.WriteBackS, f.Throughput.TPS)
				if rate <= 0 || rate > limit*1.1 {
					t.Errorf("%s = %.1f under a cap of %.0f", k, rate, limit)
				}
				rates++
			}
			if rates < 2 {
				t.Fatalf("no io rates in evidence: %+v", f.Limits.Evidence)
			}
		})
	}
}

func TestNeighbourLoadIsMeasuredAndCleanedUp(t *testing.T) {
	requireLimits(t)
	if err := limits.CheckNeighbour("x1", 0); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	f := runOne(t, &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_update_index"}, Datasets: []string{"10000"},
		Clients: []int{2}, Duration: "3s", Interval: "0s", Neighbour: []string{"x1"}, IOPS: 400})
	ev := f.Limits.Evidence
	r, _ := strconv.ParseFloat(ev["neighbour.read_iops"], 64)
	w, _ := strconv.ParseFloat(ev["neighbour.write_iops"], 64)
	t.Logf("neighbour x1 under a shared 400+400 IOPS cap: %.0f read + %.0f write IOPS; server %.0f tps", r, w, f.Throughput.TPS)
	if r <= 0 || w <= 0 || ev["neighbour.jobs"] != "1" {
		t.Fatalf("neighbour not measured: %v; notes %v", ev, f.Limits.Notes)
	}
	if r > 400*1.2 || w > 400*1.2 {
		t.Fatalf("the neighbour escaped the IOPS cap it shares with the server: %v", ev)
	}
	// only this test's fio: its file is under a shootout-test- directory
	mine := "--name=shootout-neighbour --filename=" + filepath.Join(os.TempDir(), "shootout-test-")
	out, _ := exec.Command("pgrep", "-f", mine).Output()
	if len(out) > 0 {
		t.Fatalf("fio still running: %s", out)
	}
}

// TestCPUQuotaBoundsServerCPU: point selects on a small table keep the
// server busy on CPU alone; under a quota of 0.2 cores it must not use
// more than that (plus sampling slack), and its cpu cgroup must be gone
// when the cell ends.
func TestCPUQuotaBoundsServerCPU(t *testing.T) {
	requireLimits(t)
	if err := limits.Check(limits.Request{CPUQuota: 0.2}); err != nil {
		t.Skip(err)
	}
	// 1000 rows: the load runs under the quota too, and in the cgroup v2
	// guest (emulated) 10,000 took 10 s of its 40; a table this small
	// keeps the server on CPU as well
	base := plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{"1000"},
		Clients: []int{4}, Duration: "4s", Interval: "0s"}
	quota := base
	quota.CPUs = "0.2"
	f := runOne(t, &quota)
	if f.Cell.Conditions.CPUs != "0.2" || !strings.Contains(f.Cell.ID, "__cpu0.2__h") {
		t.Fatalf("the quota is not in the cell's conditions and id: %+v %s", f.Cell.Conditions, f.Cell.ID)
	}
	v1 := f.Limits.Settings["cpu.cfs_quota_us"] == "20000" && f.Limits.Settings["cpu.cfs_period_us"] == "100000"
	if !f.Limits.Applied || (!v1 && f.Limits.Settings["cpu.max"] != "20000 100000") {
		t.Fatalf("quota not applied: %+v", f.Limits)
	}
	cores, err := strconv.ParseFloat(f.Limits.Evidence["server_cpu_cores_during_run_and_writeback"], 64)
	if err != nil {
		t.Fatalf("no server CPU in evidence: %+v", f.Limits)
	}
	throttled, _ := strconv.Atoi(f.Limits.Evidence["cpu.stat.nr_throttled"])
	t.Logf("server CPU: %.3f cores under a 0.2 quota (%.0f qps, throttled in %d periods)", cores, f.Throughput.QPS, throttled)
	if cores <= 0 || cores > 0.25 || throttled == 0 {
		t.Fatalf("%.3f cores, %d throttled periods under a 0.2-core quota", cores, throttled)
	}
	left, _ := filepath.Glob(filepath.Join(limits.Root, "*", limits.Prefix+strconv.Itoa(os.Getpid())+"-*"))
	if len(left) > 0 {
		t.Fatalf("cgroups left after the cell: %v", left)
	}
	if guestV2() {
		return
	}
	free := runOne(t, &base)
	freeCPU, _ := free.Server.CPU()
	if freeCores := freeCPU / free.Throughput.Seconds; freeCores < 0.4 {
		t.Fatalf("the workload used only %.2f cores without a quota: not CPU-bound enough to test one", freeCores)
	}
}

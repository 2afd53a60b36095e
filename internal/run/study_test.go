package run

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/report"
	"shootout/internal/result"
)

// Whole studies are make studies' (every study's --quick on real
// servers); here each preset study's own plan runs end to end on fakes:
// its matrix resolved as a user's run resolves it, every cell run in the
// plan's order, and the report's tables drawn from the files with the
// study's baseline. What only a real server shows of a study (the sizing
// fitting a memory cap, kv's reads from memory, the engines each study
// names) has its own short real cell: TestInnoDBIndexBuildFitsTheSizedCap,
// TestMemoryCapLimitsThePageCache, TestKVReadsOnEveryServerAndPath,
// TestShopOnEveryEngine, TestRedmineOnEveryServer.
func TestStudyPlansRunOnTheFakeTarget(t *testing.T) {
	for _, s := range plan.Studies {
		t.Run(s.Name, func(t *testing.T) {
			res, err := s.Plan.Resolve(plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := fakeStudy(t, res)
			r, log := fakeRunner(t)
			var files []*result.File
			r.OnCell = func(f *result.File) { files = append(files, f) }
			sum, err := r.Matrix(context.Background(), res)
			if err != nil || sum.Ran != len(res.Cells) || len(files) != len(res.Cells) {
				t.Fatalf("%d of %d cells ran (%d files): %v\n%s", sum.Ran, len(res.Cells), len(files), err, log)
			}
			for i, f := range files {
				if !f.OK() || f.Cell.ID != res.Cells[i].ID {
					t.Errorf("cell %d: %s %s", i, f.Cell.ID, f.Status)
				}
			}
			var out strings.Builder
			report.Terminal(&out, files, res.Baseline)
			for _, name := range want {
				if !strings.Contains(out.String(), name) {
					t.Errorf("the report does not name %s:\n%s", name, out.String())
				}
			}
		})
	}
}

// fakeStudy puts res's cells on fakes named as the study's targets, with
// the fake workload on a small dataset per study dataset (kept apart), and
// short cells. The conditions only a managed server takes (a modelled
// disk, a memory cap, a neighbour's fio) stay with their own tests: cells
// with a neighbour are dropped, the others keep their identity. It returns
// the targets the report must name.
func fakeStudy(t *testing.T, res *plan.Resolved) []string {
	t.Helper()
	var names []string
	fakes := map[string]bool{}
	res.Targets = res.Targets[:0]
	res.Duration, res.Interval = 50*time.Millisecond, 0
	sets := map[string]string{}
	var cells []result.Cell
	for _, c := range res.Cells {
		if n := c.Conditions.Neighbour; n != "" && n != "0" {
			continue
		}
		if !fakes[c.Target] {
			fakes[c.Target] = true
			names = append(names, c.Target)
			res.Targets = append(res.Targets, &fakeTarget{name: c.Target, script: fakeScript{latency: time.Millisecond}})
		}
		if sets[c.Dataset] == "" {
			sets[c.Dataset] = fmt.Sprint(100 + len(sets))
		}
		c.Workload, c.Dataset, c.Duration, c.Reps = "fake", sets[c.Dataset], "50ms", 0
		c.Conditions.Disk, c.Conditions.MemoryBytes, c.Conditions.Interval = "", 0, "0s"
		// the workload's parameters (kv's paths) keep the cells apart
		// by their ids; the fake takes none
		c.ID, c.Params = plan.CellID(c), nil
		cells = append(cells, c)
	}
	if len(cells) == 0 {
		t.Fatal("the study has no cell without a neighbour")
	}
	res.Cells = cells
	return names
}

// The sysbench study's one real-server fact no other test shows: its
// sizing (the seed's 1G caches in its 3G, a third) fits under the memory
// cap with the caches full, on both its engines, the OOM killer never near.
// Scaled down: 96M caches in 288M, 400k rows (about 100 MB) overflowing
// them, the server's fixed share as large as ever, so the harder case.
func TestSysbenchStudySizingFitsItsMemoryCap(t *testing.T) {
	requireLimits(t)
	requireTargets(t, "mariadb-innodb", "mariadb-rocksdb")
	// the two engines side by side, each in its own memory cgroup, each
	// server on every core (--cpus all: a cell placed on its own CPUs
	// moves the whole test process, which two cells cannot share); what
	// is asserted is each cell's own cgroup's evidence
	ledger := limits.Open()
	t.Cleanup(ledger.Close)
	caches := map[string]string{"mariadb-innodb": "innodb_buffer_pool_size", "mariadb-rocksdb": "rocksdb_block_cache_size"}
	for _, name := range []string{"mariadb-innodb", "mariadb-rocksdb"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := &plan.Plan{Name: "sizing", Targets: []string{name}, Workloads: []string{"oltp_read_write"},
				Datasets: []string{"400000"}, Clients: []int{13}, Duration: "3s", Interval: "0s", Memory: "288M", CPUs: "all",
				Settings: map[string]map[string]string{name: {caches[name]: "96M"}}}
			checkSizing(t, runPlan(t, p, &Runner{Ledger: ledger}, 1)[0])
		})
	}
}

// checkSizing: the cell ran, under its memory cap, and was never OOM killed.
func checkSizing(t *testing.T, f *result.File) {
	ev := f.Limits.Evidence
	if !f.OK() {
		t.Errorf("%s: %s", f.Cell.ID, f.Status)
	}
	if n, _ := strconv.Atoi(ev["memory.oom_kill"]); n > 0 || ev["memory.limit_in_bytes"] == "" {
		t.Errorf("%s: OOM kills %q, limit %q", f.Cell.ID, ev["memory.oom_kill"], ev["memory.limit_in_bytes"])
	}
	t.Logf("%s: %.0f tps, peak memory %s of %s", f.Cell.ID, f.Throughput.TPS, ev["memory.max_usage_in_bytes"], ev["memory.limit_in_bytes"])
}

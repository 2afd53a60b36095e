package run

import (
	"context"
	"strconv"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// reducedStudies are the preset studies cut to test size. Where a study
// caps memory, the reduced dataset keeps its memory-to-data ratio: seed
// 004's 10 M rows in 3G with 1G caches become 1.25 M rows in 384M with
// 128M caches (the server's fixed share does not shrink, so this is the
// harder case), 50 clients become 13, on the seed's ssd model. The
// redmine study keeps its small set at the seed's 1G with its heaviest
// condition, 4 clients beside an x4 neighbour on the seed's hdd model; the
// shop study every engine and build with the seed's 20 clients. The
// default study's repeats are the plan's (TestAutoRepeat… and the plan's
// tests check them); one here.
var reducedStudies = map[string]func(p *plan.Plan){
	"default": func(p *plan.Plan) {
		p.Datasets, p.Duration, p.Interval, p.Repeat = []string{"20000"}, "3s", "0s", "1"
	},
	"sysbench": func(p *plan.Plan) {
		p.Datasets, p.Memory, p.Clients, p.Duration, p.Interval = []string{"1250000"}, "384M", []int{13}, "8s", "0s"
		p.Settings = map[string]map[string]string{"mariadb-innodb": {"innodb_buffer_pool_size": "128M"},
			"mariadb-rocksdb": {"rocksdb_block_cache_size": "128M"}}
	},
	"redmine": func(p *plan.Plan) {
		p.Datasets, p.Clients, p.Neighbour, p.Duration, p.Interval = []string{"small"}, []int{4}, []string{"x4"}, "4s", "0s"
	},
	// the seed's 20 clients in its 4G, each walking the first 5 pages
	"shop": func(p *plan.Plan) {
		p.Datasets, p.Reps, p.Interval = []string{"2000"}, 5, "0s"
	},
	// the seed's 100 clients, every path and allocator, a read each
	"kv": func(p *plan.Plan) {
		p.Datasets, p.Interval = []string{"20000"}, "0s"
		p.Params = map[string]string{"id_count": "2000", "rounds": "1"}
	},
}

// TestStudiesAtReducedScale runs every preset study's matrix, cut down, on
// every target it names: each cell must run to the end, and none may
// have been near the OOM killer.
func TestStudiesAtReducedScale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	requireLimits(t)
	for _, s := range plan.Studies {
		reduce, ok := reducedStudies[s.Name]
		if !ok {
			t.Errorf("study %s has no reduced form here: add one", s.Name)
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			p := s.Plan
			reduce(&p)
			for _, name := range p.Targets {
				tg, err := target.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				testenv.RequireTarget(t, tg)
			}
			res, err := p.Resolve(plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: limits.Open()}
			defer r.Ledger.Close()
			var files []*result.File
			r.OnCell = func(f *result.File) { files = append(files, f) }
			if _, err := r.Matrix(context.Background(), res); err != nil {
				t.Fatal(err)
			}
			if len(files) != len(res.Cells) {
				t.Fatalf("%d of %d cells ran", len(files), len(res.Cells))
			}
			for _, f := range files {
				if !f.OK() {
					t.Errorf("%s: %s", f.Cell.ID, f.Status)
					continue
				}
				ev := f.Limits.Evidence
				if n, _ := strconv.Atoi(ev["memory.oom_kill"]); n > 0 {
					t.Errorf("%s: the OOM killer ran in the window (%s)", f.Cell.ID, ev["memory.oom_kill"])
				}
				if ev["memory.limit_in_bytes"] != "" {
					t.Logf("%s: %.0f tps, peak memory %s of %s", f.Cell.ID, f.Throughput.TPS, ev["memory.max_usage_in_bytes"], ev["memory.limit_in_bytes"])
				}
			}
		})
	}
}

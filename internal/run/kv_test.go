package run

import (
	"context"
	"database/sql"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"shootout/internal/plan"
)

// TestKVReadsOnEveryServerAndPath runs the key-value reads on real
// servers, SQL and native, by every access path each speaks, and on
// allocators put under the server: every client reads its slice of the
// ids every round, every row read is checked against the value loaded (a
// wrong or missing one fails the cell), and the window proves it read
// from memory.
func TestKVReadsOnEveryServerAndPath(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	// client: kv's client param (the Go drivers when empty)
	type variant struct{ path, allocator, client string }
	variants := map[string][]variant{
		"mariadb-innodb":  {{"prepared", "", ""}, {"prepared", "", "libmariadb"}, {"text", "", ""}, {"handler", "", ""}, {"batch", "", ""}, {"prepared", "tcmalloc", ""}, {"handler", "jemalloc", ""}},
		"mariadb-memory":  {{"prepared", "", ""}, {"handler", "", ""}},
		"mariadb-myisam":  {{"handler", "", ""}, {"prepared", "tcmalloc", ""}, {"prepared", "", "libmariadb"}},
		"mariadb-aria":    {{"handler", "", ""}},
		"mariadb-rocksdb": {{"prepared", "", ""}},
		"postgres":        {{"prepared", "", ""}, {"text", "", ""}, {"batch", "", ""}},
		"sqlite":          {{"prepared", "", ""}, {"batch", "", ""}},
		"redis":           {{"get", "", ""}, {"batch", "", ""}, {"get", "tcmalloc", ""}},
		"memcached":       {{"get", "", ""}, {"batch", "", ""}, {"get", "jemalloc", ""}},
		"tarantool-memtx": {{"get", "", ""}, {"batch", "", ""}, {"get", "tcmalloc", ""}},
		"tarantool-vinyl": {{"get", "", ""}, {"batch", "", ""}},
	}
	for name, vs := range variants {
		for _, v := range vs {
			t.Run(name+"/"+v.path+"/"+v.allocator+"/"+v.client, func(t *testing.T) {
				// side by side, each in a process of its own: a cell here
				// is mostly its server's start and load; what is asserted
				// is its own server's reads and page cache (its processes'
				// reads, its cgroup's IOs), which a neighbour does not change
				t.Parallel()
				requireTargets(t, name)
				p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: []string{"kv"}, Datasets: []string{"20000"},
					Params:  map[string]string{"id_count": "3000", "rounds": "2", "batch": "64"},
					Paths:   []string{v.path},
					Clients: []int{4}, Duration: "60s", Interval: "0s"}
				if v.allocator != "" {
					p.Allocators = []string{v.allocator}
				}
				if v.client != "" {
					p.Params["client"] = v.client
				}
				files, _ := runPlanApart(t, p, 1)
				f := files[0]
				if !f.OK() {
					t.Fatalf("%s", f.Status)
				}
				if got := f.Counters["rows_read"]; got != 6000 {
					t.Errorf("rows read %d, want 3000 ids x 2 rounds", got)
				}
				if f.Throughput.Seconds > 50 {
					t.Errorf("the run lasted %.0f s: it did not end when the clients had read their slices", f.Throughput.Seconds)
				}
				im := f.Server.InMemory
				if im == nil || !im.OK {
					t.Errorf("no proof the reads came from memory: %+v", im)
				}
				// every server shootout started says how much of its files the
				// page cache held (those that read through it some) and
				// whether the machine kept a cached file nobody touched
				if im != nil {
					if im.ControlDroppedBytes < 0 || im.AvailableBytes <= 0 {
						t.Errorf("the window did not watch the page cache: %+v", im)
					}
					if strings.HasPrefix(name, "mariadb-") || name == "postgres" || name == "sqlite" {
						if im.FilesBytes == 0 {
							t.Errorf("the window did not measure the page cache's share of the server's files: %+v", im)
						}
						if (name == "mariadb-myisam" || name == "sqlite") && im.CachedAtStartBytes == 0 {
							t.Errorf("none of the %d bytes of a page-cache engine's files cached after the warm-up", im.FilesBytes)
						}
					}
				}
				if v.allocator != "" {
					mapped := f.Target.Applied["malloc_lib_mapped"]
					if f.Cell.Conditions.Allocator != v.allocator || !strings.Contains(mapped, "lib"+v.allocator) {
						t.Errorf("allocator %s asked, recorded %q, mapped %q", v.allocator, f.Cell.Conditions.Allocator, mapped)
					}
				}
			})
		}
	}
}

// A row that changed after the load fails the cell, naming the id and the
// values, with either client: the Go driver's rows and those the loop in
// C hands back are checked alike.
func TestKVFailsACellThatReadAWrongRow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	// both clients side by side, each server on every core (--cpus all:
	// a cell placed on its own CPUs moves the whole test process, which
	// two cells cannot share); no figure is asserted
	for _, client := range []string{"go", "libmariadb"} {
		t.Run(client, func(t *testing.T) {
			t.Parallel()
			requireTargets(t, "mariadb-innodb")
			var changed atomic.Int64
			r := &Runner{duringRun: func(ctx context.Context, db *sql.DB) {
				// every 50th row, while the first rounds read: the later ones read them changed
				if res, err := db.ExecContext(ctx, "UPDATE keyvalue SET value1 = value1 + 1 WHERE id % 50 = 0"); err == nil {
					n, _ := res.RowsAffected()
					changed.Store(n)
				}
			}}
			p := &plan.Plan{Name: "it", Targets: []string{"mariadb-innodb"}, Workloads: []string{"kv"}, Datasets: []string{"20000"},
				// rounds enough that most reads come after the UPDATE,
				// which runs beside the clients, however fast they are
				Params:  map[string]string{"id_count": "3000", "rounds": "20", "client": client},
				Clients: []int{4}, Duration: "60s", Interval: "0s", CPUs: "all"}
			f := runPlan(t, p, r, 1)[0]
			if changed.Load() != 400 {
				t.Fatalf("changed %d rows, want 400", changed.Load())
			}
			fails := strings.Join(f.Invariants.Failures, "; ")
			if f.OK() || !strings.Contains(fails, "did not return the row loaded") || !regexp.MustCompile(`id \d+: \(\d+, [0-9.e+]+\), loaded`).MatchString(fails) {
				t.Fatalf("status %s, failures %q: want the cell failed, naming a wrong row's id and values", f.Status, fails)
			}
		})
	}
}

// A path, protocol or allocator a target cannot take is refused before
// anything starts, naming it.
func TestKVRefusesWhatATargetCannotTake(t *testing.T) {
	cases := []struct {
		p    plan.Plan
		want string
	}{
		{plan.Plan{Targets: []string{"postgres"}, Params: map[string]string{"path": "handler"}}, "--param: kv on postgres: kv path=handler is MariaDB's HANDLER"},
		{plan.Plan{Targets: []string{"redis"}, Paths: []string{"prepared"}}, "--path: kv on redis: kv path=prepared is SQL's; a redis server reads by get or batch"},
		{plan.Plan{Targets: []string{"mariadb-innodb"}, Paths: []string{"get"}}, "--path: kv on mariadb-innodb: kv path=get is the native servers' single read"},
		{plan.Plan{Targets: []string{"redis", "mariadb-innodb"}, Paths: []string{"get", "text"}, Allocators: []string{"glibc"}, AllocatorTargets: []string{"redis"}},
			"--allocator: redis: redis-server links jemalloc itself"},
		{plan.Plan{Targets: []string{"mariadb-innodb"}, Allocators: []string{"hoard"}}, `--allocator: "hoard" is not an allocator`},
		{plan.Plan{Targets: []string{"redis"}, Workloads: []string{"oltp_point_select"}}, "--targets: oltp_point_select on redis: workload oltp_point_select speaks SQL only, not redis"},
		{plan.Plan{Targets: []string{"postgres"}, Params: map[string]string{"client": "libmariadb"}}, "--targets: kv on postgres: kv client=libmariadb speaks to MariaDB and MySQL only, not postgres"},
		{plan.Plan{Targets: []string{"redis"}, Params: map[string]string{"client": "libmariadb"}}, "kv client=libmariadb speaks to MariaDB and MySQL only, not redis"},
		{plan.Plan{Targets: []string{"mariadb-innodb"}, Params: map[string]string{"client": "libmariadb", "path": "handler"}}, "kv client=libmariadb reads by path=prepared only, not handler"},
	}
	for _, c := range cases {
		p := c.p
		if p.Workloads == nil {
			p.Workloads = []string{"kv"}
		}
		p.Datasets, p.Clients, p.Duration = []string{"1000"}, []int{1}, "10s"
		_, err := p.Resolve(plan.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	// on a plan of several targets each runs the paths it speaks
	p := plan.Plan{Targets: []string{"mariadb-innodb", "postgres", "redis"}, Workloads: []string{"kv"}, Datasets: []string{"1000"}, Clients: []int{1}, Duration: "10s",
		Paths: []string{"prepared", "handler", "get"}, Allocators: []string{"glibc", "tcmalloc"}, AllocatorTargets: []string{"mariadb-innodb"}}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Cells {
		got = append(got, c.Target+" "+c.Params["path"]+" "+c.Conditions.Allocator)
	}
	want := "mariadb-innodb prepared glibc, mariadb-innodb prepared tcmalloc, mariadb-innodb handler glibc, mariadb-innodb handler tcmalloc, postgres prepared , redis get "
	if strings.Join(got, ", ") != want {
		t.Errorf("cells:\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
}

package plan

import (
	"fmt"
	"sort"
	"strings"
)

// Study is a named preset plan, one per seed study that is runnable now.
type Study struct {
	Name, Description, Seed string
	Plan                    Plan
	// Quick is the variant `run --quick` runs: the same matrix cut down
	// to minutes, nil when the study has none.
	Quick *Plan
}

func trim(f float64) *float64 { return &f }

// Studies are the presets behind `run --study NAME`.
var Studies = []Study{
	{
		Name:        "default",
		Description: "oltp_read_write on 1M rows, 8 clients, 30 s, on every target available here: a few minutes in all",
		Seed:        "(none: the quick look)",
		Plan: Plan{Name: "default", Targets: []string{"sqlite", "mariadb-innodb", "mariadb-rocksdb", "postgres"},
			Baseline: "mariadb-innodb", Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000000"},
			Clients: []int{8}, Duration: "30s", Repeat: "1", Trim: trim(0.1), Interval: "10s"},
	},
	{
		Name:        "sysbench",
		Description: "seed 004: sysbench oltp_read_write, InnoDB vs MyRocks, 10M rows, 50 threads, 120 s, 1G memory budget (--quick: 1M rows, 30 s)",
		Seed:        "004",
		Plan: Plan{Name: "sysbench", Targets: []string{"mariadb-innodb", "mariadb-rocksdb"}, Baseline: "mariadb-innodb",
			Workloads: []string{"oltp_read_write"}, Datasets: []string{"10000000"}, Clients: []int{50},
			Duration: "120s", Repeat: "1", Memory: "1G", Trim: trim(0.1), Interval: "10s"},
		// 1M rows (~250 MB) fit in the 1G budget: the quick run measures
		// CPU and commits, not the seed's reads from disk
		Quick: &Plan{Name: "sysbench-quick", Targets: []string{"mariadb-innodb", "mariadb-rocksdb"}, Baseline: "mariadb-innodb",
			Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000000"}, Clients: []int{50},
			Duration: "30s", Repeat: "1", Memory: "1G", Trim: trim(0.1), Interval: "10s"},
	},
	{
		Name: "redmine",
		Description: "seeds 000/002: Redmine's create and process10 cycles on MyRocks (baseline), InnoDB, PostgreSQL, SQLite; " +
			"clients 1,2,4 x neighbours 0,25%,x1,x2,x4 x (small,1G) (large,2G) (giant,8G) on a 100-IOPS disk; hours (--quick: the small set in about 15 min)",
		Seed: "000/002",
		Plan: Plan{Name: "redmine", Targets: redmineTargets, Baseline: "mariadb-rocksdb", Workloads: []string{"redmine"},
			Datasets: []string{"small", "large", "giant"}, DatasetMemory: map[string]string{"small": "1G", "large": "2G", "giant": "8G"},
			Clients: []int{1, 2, 4}, Neighbour: []string{"0", "25%", "x1", "x2", "x4"}, IOPS: 100,
			Duration: "60s", Repeat: "1", Trim: trim(0.1), Interval: "10s"},
		Quick: &Plan{Name: "redmine-quick", Targets: redmineTargets, Baseline: "mariadb-rocksdb", Workloads: []string{"redmine"},
			Datasets: []string{"small"}, DatasetMemory: map[string]string{"small": "1G", "large": "2G", "giant": "8G"},
			Clients: []int{1, 2, 4}, Neighbour: []string{"0", "25%", "x1", "x2", "x4"}, IOPS: 100,
			Duration: "8s", Repeat: "1", Trim: trim(0.1), Interval: "0s"},
	},
	{
		Name: "shop",
		Description: "seed 001: a web shop's 50 most visited pages as siege -b -c 20 -r 50 walks them (1,000 pages), 40,000 products x ~200 columns, " +
			"on MyISAM (baseline), Aria, Aria non-transactional, InnoDB, MyRocks, PostgreSQL, SQLite; 4G like the seed's VM (--quick: 8,000 products, -c 10)",
		Seed: "001",
		Plan: Plan{Name: "shop", Targets: shopTargets, Baseline: "mariadb-myisam", Workloads: []string{"shop"}, Datasets: []string{"40000"},
			Clients: []int{20}, Reps: 50, Repeat: "1", Memory: "4G", Trim: trim(0), Interval: "10s"},
		Quick: &Plan{Name: "shop-quick", Targets: shopTargets, Baseline: "mariadb-myisam", Workloads: []string{"shop"}, Datasets: []string{"8000"},
			Clients: []int{10}, Reps: 50, Repeat: "1", Memory: "4G", Trim: trim(0), Interval: "10s"},
	},
	{
		Name: "kv",
		Description: "seed 003: MySQL as a key-value store: 10M rows, 1M random ids read 10 rounds by 100 clients (10M reads), rows/s per server, " +
			"on InnoDB (baseline), MEMORY, MyISAM, Aria by prepared SELECT and HANDLER, glibc and tcmalloc under InnoDB and MyISAM, MyRocks (no HANDLER), " +
			"PostgreSQL, SQLite, Redis, Tarantool (memtx), memcached by their point reads; every cell proves it read from memory (--quick: 1M rows, 100k ids, 2 rounds)",
		Seed: "003",
		Plan: Plan{Name: "kv", Targets: kvTargets, Baseline: "mariadb-innodb", Workloads: []string{"kv"}, Datasets: []string{"10000000"},
			Params: map[string]string{"id_count": "1000000", "rounds": "10"}, Paths: []string{"prepared", "handler", "get"},
			Allocators: []string{"glibc", "tcmalloc"}, AllocatorTargets: []string{"mariadb-innodb", "mariadb-myisam"},
			Clients: []int{100}, Duration: "20m", Repeat: "1", Trim: trim(0.1), Interval: "10s"},
		Quick: &Plan{Name: "kv-quick", Targets: kvTargets, Baseline: "mariadb-innodb", Workloads: []string{"kv"}, Datasets: []string{"1000000"},
			Params: map[string]string{"id_count": "100000", "rounds": "2"}, Paths: []string{"prepared", "handler", "get"},
			Allocators: []string{"glibc", "tcmalloc"}, AllocatorTargets: []string{"mariadb-innodb", "mariadb-myisam"},
			Clients: []int{100}, Duration: "5m", Repeat: "1", Trim: trim(0.1), Interval: "10s"},
	},
}

// kvTargets are seed 003's engines, then the rows it could not try.
var kvTargets = []string{"mariadb-innodb", "mariadb-memory", "mariadb-myisam", "mariadb-aria", "mariadb-rocksdb", "postgres", "sqlite",
	"redis", "tarantool-memtx", "memcached"}

// shopTargets are the seed's engines, then the extra rows, then MyISAM and
// InnoDB on MariaDB 11.4 as the seed set forks side by side (where `make
// deps-builds` put the build; skipped, saying so, where it did not).
// MEMORY is not among them: the shop's descriptions are TEXT.
var shopTargets = []string{"mariadb-myisam", "mariadb-aria", "mariadb-aria-nontx", "mariadb-innodb", "mariadb-rocksdb", "postgres", "sqlite",
	"mariadb-myisam@" + MariaDBBuild, "mariadb-innodb@" + MariaDBBuild}

// MariaDBBuild is where `make deps-builds` puts MariaDB 11.4.5.
const MariaDBBuild = "/var/cache/shootout/builds/mariadb-11.4.5"

// redmineTargets are the seed's two engines first, then the extra rows.
var redmineTargets = []string{"mariadb-rocksdb", "mariadb-innodb", "postgres", "sqlite"}

// QuickStudies names the studies with a quick variant.
func QuickStudies() []string {
	var names []string
	for _, s := range Studies {
		if s.Quick != nil {
			names = append(names, s.Name)
		}
	}
	return names
}

// LookupStudy finds a preset by name.
func LookupStudy(name string) (*Study, error) {
	var names []string
	for i := range Studies {
		if Studies[i].Name == name {
			s := Studies[i]
			return &s, nil
		}
		names = append(names, Studies[i].Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("--study: unknown study %q (valid: %s)", name, strings.Join(names, ", "))
}

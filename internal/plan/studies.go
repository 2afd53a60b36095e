package plan

import (
	"fmt"
	"sort"
	"strings"

	"shootout/internal/stats"
)

// Study is a named preset plan, one per seed study that is runnable now.
type Study struct {
	Name, Description string
	// Seed names the seed study the preset reproduces; "" for none.
	Seed string
	// Setup is the seed's own machine and settings; nil without a seed.
	Setup *Setup
	Plan  Plan
	// Quick is the variant `run --quick` runs: the same matrix cut down
	// to minutes, nil when the study has none.
	Quick *Plan
}

func trim(f float64) *float64 { return &f }

// defaultRepeats is what lets the default study's headline rest on a
// test: the fewest repeats a side that can reach the report's alpha.
var defaultRepeats = stats.LeastRepeats(DefaultAlpha)

// Studies are the presets behind `run --study NAME`.
var Studies = []Study{
	{
		Name: "default",
		Description: fmt.Sprintf("oltp_read_write on 100k rows, 8 clients, 8 s, on SQLite, InnoDB, MyRocks and PostgreSQL (those available here), "+
			"%d repeats taken in turns (A B C D A B C D …): the fewest with which a difference can be significant; "+
			"about 3 minutes on a quiet 2-core machine", defaultRepeats),
		// the repeats are the plan's outermost loop, so each round runs
		// every target once and a drift of the machine spreads over all
		Plan: Plan{Name: "default", Targets: []string{"sqlite", "mariadb-innodb", "mariadb-rocksdb", "postgres"},
			Baseline: "mariadb-innodb", Workloads: []string{"oltp_read_write"}, Datasets: []string{"100000"},
			Clients: []int{8}, Duration: "8s", Repeat: fmt.Sprint(defaultRepeats), Trim: trim(0.1), Interval: "4s"},
	},
	{
		Name: "sysbench",
		Description: "sysbench oltp_read_write, InnoDB vs MyRocks, 10M rows, 50 threads, 120 s, in the seed's 3G VM " +
			"with 1G caches on an SSD (--quick: 1M rows, 30 s)",
		Seed: "004",
		Setup: &Setup{
			Machine: "a VMware VM: 2 vCPU (server and sysbench 1.0.15 shared them), 3 GB, an SSD",
			CPUs:    2,
			Servers: "MariaDB (version not stated), InnoDB's buffer pool and MyRocks' block cache 1G, " +
				"everything else the server's defaults",
			Differs: []string{
				"the server: MariaDB 10.11 from Debian here, its defaults (InnoDB's redo log 96M) " +
					"where the seed's were those of its unstated version",
				"the SSD is the ssd model (docs/disks.md): its queue-depth-16 and 1 MB figures " +
					"are beyond a 2-core machine, which calibrate says",
				"the client: shootout's oltp_read_write (sysbench's statements), not sysbench 1.0.15; " +
					"by default the server on every CPU but the first and the clients on it, " +
					"where the seed's shared both",
			},
		},
		Plan: Plan{Name: "sysbench", Targets: []string{"mariadb-innodb", "mariadb-rocksdb"}, Baseline: "mariadb-innodb",
			Workloads: []string{"oltp_read_write"}, Datasets: []string{"10000000"}, Clients: []int{50},
			Duration: "120s", Repeat: "1", Memory: "3G", Disk: "ssd", Settings: seed004Caches(),
			Trim: trim(0.1), Interval: "10s"},
		// 1M rows (~250 MB) fit in the 1G caches: the quick run measures
		// CPU and commits, not the seed's reads from disk
		Quick: &Plan{Name: "sysbench-quick", Targets: []string{"mariadb-innodb", "mariadb-rocksdb"}, Baseline: "mariadb-innodb",
			Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000000"}, Clients: []int{50},
			Duration: "30s", Repeat: "1", Memory: "3G", Disk: "ssd", Settings: seed004Caches(),
			Trim: trim(0.1), Interval: "10s"},
	},
	{
		Name: "redmine",
		Description: "Redmine's create and process10 cycles on MyRocks (baseline), InnoDB, PostgreSQL, SQLite; " +
			"clients 1,2,4 x neighbours 0,25%,x1,x2,x4 x (small,1G) (large,2G) (giant,8G) on a 7200-rpm disk " +
			"whose flushes are acknowledged; hours (--quick: the small set in about 15 min)",
		Seed: "000/002",
		Setup: &Setup{
			Machine: "Xen 4.6 VMs of 1, 2 and 8 GB (small, large, giant), 4 vCPU each, on a 16 GB LVM volume " +
				"of a mirrored 7200-rpm HDD (WD RE4), flushes acknowledged by the stack",
			CPUs: 4,
			Servers: "MyRocks on Facebook's MySQL 5.6, InnoDB on MySQL 5.6.31 and MariaDB 10.1.16, settings not stated " +
				"(the servers' defaults); fio neighbours in the same VM",
			Differs: []string{
				"the servers: MariaDB 10.11's InnoDB and MyRocks from Debian, shootout's memory sizing " +
					"(docs/sizing.md) for the unstated settings",
				"the disk is the hdd:flush=ignore model on this machine's storage, not the seed's drive",
			},
		},
		Plan: Plan{Name: "redmine", Targets: redmineTargets, Baseline: "mariadb-rocksdb", Workloads: []string{"redmine"},
			Datasets: []string{"small", "large", "giant"}, DatasetMemory: map[string]string{"small": "1G", "large": "2G", "giant": "8G"},
			Clients: []int{1, 2, 4}, Neighbour: []string{"0", "25%", "x1", "x2", "x4"}, Disk: seed000Disk,
			Duration: "60s", Repeat: "1", Trim: trim(0.1), Interval: "10s"},
		Quick: &Plan{Name: "redmine-quick", Targets: redmineTargets, Baseline: "mariadb-rocksdb", Workloads: []string{"redmine"},
			Datasets: []string{"small"}, DatasetMemory: map[string]string{"small": "1G", "large": "2G", "giant": "8G"},
			Clients: []int{1, 2, 4}, Neighbour: []string{"0", "25%", "x1", "x2", "x4"}, Disk: seed000Disk,
			Duration: "8s", Repeat: "1", Trim: trim(0.1), Interval: "0s"},
	},
	{
		Name: "shop",
		Description: "a web shop's 50 most visited pages as siege -b -c 20 -r 50 walks them (1,000 pages), 40,000 products x ~200 columns, " +
			"on MyISAM (baseline), Aria, Aria non-transactional, InnoDB, MyRocks, PostgreSQL, SQLite; 4G like the seed's VM (--quick: 8,000 products, -c 10)",
		Seed: "001",
		Setup: &Setup{
			Machine: "a VM of 4 cores and 4 GB (Debian 7.6), disk not stated",
			CPUs:    4,
			Servers: "MySQL 5.1-5.6, Percona 5.6, MariaDB 10.0 with the shop's my.cnf " +
				"(docs/examples/seed-001.cnf: key_buffer and buffer pool 512M, query cache 2G)",
			Differs: []string{
				"the servers' settings: shootout's memory sizing for the 4G; the seed's my.cnf is " +
					"docs/examples/shop-seed-001.yaml's (shootout run docs/examples/shop-seed-001.yaml)",
				"the shop: generated from the seed's description, not its own data and pages",
			},
		},
		Plan: Plan{Name: "shop", Targets: shopTargets, Baseline: "mariadb-myisam", Workloads: []string{"shop"}, Datasets: []string{"40000"},
			Clients: []int{20}, Reps: 50, Repeat: "1", Memory: "4G", Trim: trim(0), Interval: "10s"},
		Quick: &Plan{Name: "shop-quick", Targets: shopTargets, Baseline: "mariadb-myisam", Workloads: []string{"shop"}, Datasets: []string{"8000"},
			Clients: []int{10}, Reps: 50, Repeat: "1", Memory: "4G", Trim: trim(0), Interval: "10s"},
	},
	{
		Name: "kv",
		Description: "MySQL as a key-value store: 10M rows, 1M random ids read 10 rounds by 100 clients (10M reads), rows/s per server, " +
			"on InnoDB (baseline), MEMORY, MyISAM, Aria by prepared SELECT and HANDLER, glibc and tcmalloc under InnoDB and MyISAM, MyRocks (no HANDLER), " +
			"PostgreSQL, SQLite, Redis, Tarantool (memtx), memcached by their point reads; every cell proves it read from memory (--quick: 1M rows, 100k ids, 2 rounds)",
		Seed: "003",
		Setup: &Setup{
			Machine: "an 8-core AMD FX-8120 with 16 GB, two 7200-rpm disks striped (xfs); " +
				"every read from memory, no disk IO",
			CPUs:    8,
			Servers: "MySQL 5.6.5 (MEMORY, MyISAM, InnoDB), settings not stated, clients on the same machine",
			Differs: []string{
				"the servers: MariaDB 10.11's engines with shootout's sizing (the caches hold the table), " +
					"and the rows the seed could not try (Redis, Tarantool, memcached, PostgreSQL, SQLite)",
			},
		},
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

// seed004Caches are seed 004's engine caches: 1G each.
func seed004Caches() map[string]map[string]string {
	return map[string]map[string]string{
		"mariadb-innodb":  {"innodb_buffer_pool_size": "1G"},
		"mariadb-rocksdb": {"rocksdb_block_cache_size": "1G"},
	}
}

// seed000Disk is the drive of seeds 000/002's class: a 7200-rpm disk
// whose flushes the VM's stack acknowledged (docs/disks.md).
const seed000Disk = "hdd:flush=ignore"

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

// DefaultWorkload is the default study's workload: what `prepare` loads
// when given none, as sysbench prepare's is its OLTP tables.
func DefaultWorkload() string { return Studies[0].Plan.Workloads[0] }

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

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
			Clients: []int{8}, Duration: "30s", Repeat: 1, Trim: trim(0.1), Interval: "10s"},
	},
	{
		Name:        "sysbench",
		Description: "seed 004: sysbench oltp_read_write, InnoDB vs MyRocks, 10M rows, 50 threads, 120 s, 1G memory budget",
		Seed:        "004",
		Plan: Plan{Name: "sysbench", Targets: []string{"mariadb-innodb", "mariadb-rocksdb"}, Baseline: "mariadb-innodb",
			Workloads: []string{"oltp_read_write"}, Datasets: []string{"10000000"}, Clients: []int{50},
			Duration: "120s", Repeat: 1, Memory: "1G", Trim: trim(0.1), Interval: "10s"},
	},
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

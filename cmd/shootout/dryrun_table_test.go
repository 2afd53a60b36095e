package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"shootout/internal/plan"
	"shootout/internal/run"
)

// The dry run's columns come from the settings table: every setting the
// table marks an axis has a column, which the summary lists under axes
// when it varies, and every key a column claims is the table's.
func TestDryRunShowsEveryAxis(t *testing.T) {
	cols := dryRunColumns(nil)
	for _, s := range plan.Settings {
		if s.Axis && !slices.ContainsFunc(cols, func(c column) bool { return slices.Contains(c.keys, s.Key) }) {
			t.Errorf("axis %s has no column in the dry run", s.Key)
		}
	}
	for _, c := range cols {
		for _, k := range c.keys {
			if plan.SettingByKey(k) == nil {
				t.Errorf("column %s shows %s, which is no plan setting", c.name, k)
			}
		}
	}
}

// The dry run's line on retries asks each workload whether its error
// rule retries past max_retries: oltp's default (sysbench's) does, its
// errors=retry and the other workloads keep to the limit.
func TestDryRunRetriesLineAsksTheWorkload(t *testing.T) {
	for _, c := range []struct {
		args      []string
		unlimited bool
	}{
		{[]string{"--workload", "oltp_point_select"}, true},
		{[]string{"--workload", "oltp_point_select", "--param", "errors=retry"}, false},
		{[]string{"--workload", "kv"}, false},
	} {
		args := append([]string{"run", "--targets", "sqlite", "--dry-run", "--max-retries", "7"}, c.args...)
		stdout, stderr, code := shootout(t, []string{"COLUMNS=100"}, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		words := strings.Join(strings.Fields(stdout), " ")
		if !strings.Contains(words, "retries: a deadlock, lock timeout or write conflict is retried up to 7 times") {
			t.Errorf("%v: no retries line:\n%s", c.args, stdout)
		}
		if got := strings.Contains(words, "retries without limit (oltp's default, as sysbench's)"); got != c.unlimited {
			t.Errorf("%v: says it retries without limit: %v, want %v:\n%s", c.args, got, c.unlimited, stdout)
		}
	}
}

// The example plan of issue 40's table: its targets' own axes make one
// cell per variant, named in the target column and the axes line; each
// settings variant says what it starts, single servers run with no link
// and the run says so, and a Galera cell's estimate is its target's start.
func TestDryRunNamesTargetVariants(t *testing.T) {
	stdout, stderr, code := shootout(t, []string{"COLUMNS=100"}, "run", "../../docs/examples/cluster-oltp.yaml", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	words := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"24 cells",
		"axes: target mariadb-innodb, mariadb-galera writers=one link=none, mariadb-galera writers=one link=1ms, " +
			"mariadb-galera writers=all link=none, mariadb-galera writers=all link=1ms, mariadb-spider (6); link none, 1ms (2); repeat 1, 2, 3, 4 (4)",
		"mariadb-galera writers=one: a Galera cluster per cell", "clients on the first node",
		"mariadb-galera writers=all: a Galera cluster per cell", "clients on every node round-robin",
		"5 mariadb-galera writers=all link=1ms 1ms 1"} {
		if !strings.Contains(words, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"mariadb-innodb is one server: its cells run with no link (none)", "mariadb-spider is not in link_targets"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}
}

// A cluster whose nodes join one by one is allowed its target's start in
// the estimate, not a single server's few seconds.
func TestEstimateTakesAClustersStart(t *testing.T) {
	for _, name := range []string{"mariadb-innodb", "mariadb-galera"} {
		p := &plan.Plan{Targets: []string{name}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"}, Duration: "1s"}
		res, err := p.Resolve(plan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		start := max(cellStartStop, run.StartCost(res, res.Cells[0]))
		if want := "about " + humanDuration(time.Second+start+loadTime(res, res.Cells[0])); estimate(res) != want {
			t.Errorf("%s: %s, want %s", name, estimate(res), want)
		}
		if name == "mariadb-galera" && start <= cellStartStop {
			t.Errorf("%s: its start %v is no longer than a single server's", name, start)
		}
	}
}

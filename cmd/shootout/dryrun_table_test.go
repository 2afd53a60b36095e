package main

import (
	"slices"
	"strings"
	"testing"

	"shootout/internal/plan"
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

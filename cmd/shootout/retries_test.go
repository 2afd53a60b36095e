package main

import (
	"strings"
	"testing"
)

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

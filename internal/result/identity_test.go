package result

import (
	"reflect"
	"testing"
)

func TestConditionDiff(t *testing.T) {
	a := Cell{ID: "x__r1", Target: "sqlite", Workload: "oltp_point_select", Dataset: "1000", Clients: 4,
		Duration: "30s", Conditions: Conditions{Neighbour: "0"}, Repeat: 1}
	b := a
	b.ID, b.Repeat = "x__r2", 2
	if d := a.ConditionDiff(b); len(d) != 0 {
		t.Fatalf("repeats of one cell differ: %v", d)
	}
	if a.GroupKey() != b.GroupKey() || a.GroupKey() != "x" {
		t.Fatalf("group keys %q %q", a.GroupKey(), b.GroupKey())
	}
	b.Duration, b.Rate, b.Conditions.IOPS = "60s", 100, 200
	want := []string{"conditions.iops: (unset) vs 200", "duration: 30s vs 60s", "rate: (unset) vs 100"}
	if d := a.ConditionDiff(b); !reflect.DeepEqual(d, want) {
		t.Fatalf("diff = %q, want %q", d, want)
	}
}

func TestIdentityNamesEveryComparedField(t *testing.T) {
	a := Cell{ID: "x__r1", Target: "sqlite", Workload: "kv", Dataset: "1000", Clients: 4, Duration: "10s",
		Conditions: Conditions{Neighbour: "0", Settings: map[string]string{"cache": "1G"}}, Repeat: 1}
	id := a.Identity()
	if id["duration"] != "10s" || id["conditions.settings.cache"] != "1G" || id["clients"] != "4" {
		t.Fatalf("identity %v", id)
	}
	if _, ok := id["repeat"]; ok {
		t.Fatalf("the repeat number is not what a cell measured: %v", id)
	}
}

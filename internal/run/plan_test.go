package run

import (
	"strings"
	"testing"

	"shootout/internal/plan"
)

// The plan names no server build (it starts no program to learn it);
// Stamp puts the build and transport in each cell's conditions and its
// id, once.
func TestStampPutsTheBuildInTheConditionsAndID(t *testing.T) {
	p := &plan.Plan{Targets: []string{"sqlite"}, Workloads: []string{"oltp_read_only"}, Datasets: []string{"1000"}, Duration: "1s"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := res.Cells[0]
	if before.Conditions.Build != "" || before.Conditions.Transport != "" {
		t.Fatalf("the plan named a build: %+v", before.Conditions)
	}
	Stamp(res)
	after := res.Cells[0]
	if !strings.HasPrefix(after.Conditions.Build, "libsqlite3 ") || after.Conditions.Transport != "in-process" || after.ID == before.ID {
		t.Fatalf("stamped %+v, id %s (was %s)", after.Conditions, after.ID, before.ID)
	}
	Stamp(res)
	if res.Cells[0].ID != after.ID {
		t.Fatalf("a second Stamp changed the id: %s", res.Cells[0].ID)
	}
}

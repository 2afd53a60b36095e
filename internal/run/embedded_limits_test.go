package run

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/report"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestMemoryCapLimitsSQLitesPageCache: SQLite under --memory runs in an
// agent inside the cell's cgroups, so its point selects read from disk
// where without the cap (in shootout's process) the same data is served
// from memory. 1M rows (207 MB of file) under 256M, ids drawn uniformly
// (sysbench's special distribution's hot 1% would fit in any cache).
func TestMemoryCapLimitsSQLitesPageCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 1M rows twice")
	}
	requireLimits(t)
	base := plan.Plan{Targets: []string{"sqlite"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{"1000000"},
		Params: map[string]string{"rand_type": "uniform"}, Clients: []int{1}, Duration: "2s", Interval: "0s"}
	capped := base
	capped.Memory = "256M"
	limited := runOne(t, &capped)
	if !limited.Limits.Applied || len(limited.Client.Agents) != 1 {
		t.Fatalf("SQLite under --memory: limits applied %v, agents %+v; notes %q", limited.Limits.Applied, limited.Client.Agents, limited.Limits.Notes)
	}
	perOpCapped := limited.Server.ReadBytesPerOp
	t.Logf("SQLite read bytes per point select under 256M: %.0f", perOpCapped)
	if perOpCapped < 200 {
		t.Fatalf("read bytes/op %.0f capped: the cap should force reads from disk", perOpCapped)
	}
	if guestV2() {
		return
	}
	free := runOne(t, &base)
	t.Logf("without the cap (in shootout's process): %.0f", free.Server.ReadBytesPerOp)
	if perOpFree := free.Server.ReadBytesPerOp; perOpFree > perOpCapped/10 {
		t.Fatalf("read bytes/op %.0f free vs %.0f capped: without the cap the data is read from memory", perOpFree, perOpCapped)
	}
}

// A Redmine-study SQLite cell runs under the study's conditions (1G, the
// modelled disk) in an agent inside the cell's cgroups: its checks pass
// and the report no longer marks SQLite as run without limits (*).
func TestRedmineStudySQLiteCellIsLimited(t *testing.T) {
	requireLimits(t)
	testenv.RequireTarget(t, target.SQLite{})
	s, err := plan.LookupStudy("redmine")
	if err != nil {
		t.Fatal(err)
	}
	p := *s.Quick
	p.Targets, p.Baseline, p.Clients, p.Neighbour, p.Duration = []string{"sqlite"}, "", []int{1}, []string{"0"}, "2s"
	f := runOne(t, &p)
	if !f.Limits.Applied || len(f.Client.Agents) != 1 || !f.Invariants.OK {
		t.Fatalf("limits applied %v, agents %+v, invariants %+v; notes %q", f.Limits.Applied, f.Client.Agents, f.Invariants, f.Limits.Notes)
	}
	var out bytes.Buffer
	report.Terminal(&out, []*result.File{f}, "sqlite")
	if strings.Contains(out.String(), "sqlite*") || strings.Contains(out.String(), "not applied") {
		t.Errorf("the report marks the SQLite cell as run without limits:\n%s", out.String())
	}
}

// SQLite under any limit gets a server's groups (its clients and engine
// in an agent inside them) where agents can run its workload; where they
// cannot, the notes say why the limits were not applied.
func TestCellLimitsPutsSQLiteInAnAgent(t *testing.T) {
	sqlite := mustLookup(t, "sqlite")
	cond := result.Conditions{MemoryBytes: 1 << 30, IOPS: 100, CPUs: "all", Neighbour: "0"}
	cell := func(w string, c result.Conditions) result.Cell {
		return result.Cell{ID: "x", Workload: w, Conditions: c}
	}
	l, err := CellLimits(sqlite, cell("oltp_point_select", cond))
	if err != nil {
		t.Fatal(err)
	}
	want := limits.Request{MemoryBytes: 1 << 30, IOPS: 100, DeferIO: true}
	if l.Server != want || !l.Neighbour.Empty() || (l.Unavailable == nil && !strings.Contains(strings.Join(l.Notes, "; "), "agent process inside the cell's cgroups")) {
		t.Fatalf("sqlite, oltp_point_select: %+v; want the server's group %+v and a note", l, want)
	}
	withApp := cond
	withApp.App = "redmine"
	for _, tc := range []struct {
		c   result.Cell
		why string
	}{{cell("shop", cond), "shop"}, {cell("redmine", withApp), "--app"}} {
		l, _ := CellLimits(sqlite, tc.c)
		notes := strings.Join(l.Notes, "; ")
		if !l.Server.Empty() || !strings.Contains(notes, "not applied") || !strings.Contains(notes, tc.why) {
			t.Errorf("sqlite, %s: %+v; want no group and a note naming %q", tc.c.Workload, l, tc.why)
		}
	}
}

// The clients of an application in the loop speak to the application,
// which only shootout's process has: agents are refused for them, before
// any starts.
func TestAgentsRefuseAnApplicationInTheLoop(t *testing.T) {
	c := &cellRun{t: mustLookup(t, "mariadb-innodb"), cell: result.Cell{Conditions: result.Conditions{Agents: 2, App: "redmine"}}}
	err := (&agentsProbe{}).start(&window{c: c, ctx: context.Background()})
	if err == nil || !strings.Contains(err.Error(), "--app redmine") {
		t.Fatalf("--agents 2 with --app redmine: %v, want a refusal naming --app", err)
	}
}

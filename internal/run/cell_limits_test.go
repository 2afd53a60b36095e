package run

import (
	"runtime"
	"strings"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/result"
	"shootout/internal/target"
)

func cellWith(c result.Conditions) result.Cell {
	if c.Neighbour == "" {
		c.Neighbour = "0"
	}
	return result.Cell{ID: "x", Conditions: c}
}

func mustLookup(t *testing.T, name string) target.Target {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestCellLimitsMapsConditionsPerKindOfTarget(t *testing.T) {
	sqlite, maria := mustLookup(t, "sqlite"), mustLookup(t, "mariadb-innodb")
	external := mustLookup(t, "postgres://u:p@127.0.0.1:1/db")
	cond := result.Conditions{MemoryBytes: 1 << 30, IOPS: 100, CPUs: "all"}

	l, err := CellLimits(maria, cellWith(cond))
	if err != nil {
		t.Fatal(err)
	}
	want := limits.Request{MemoryBytes: 1 << 30, IOPS: 100, DeferIO: true}
	if l.Server != want || !l.Neighbour.Empty() {
		t.Fatalf("server: %+v, neighbour %+v; want the server's group %+v (disk caps deferred past the load)", l.Server, l.Neighbour, want)
	}

	l, _ = CellLimits(external, cellWith(cond))
	if !l.Server.Empty() || len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "external server") {
		t.Fatalf("external: %+v", l)
	}

	// the embedded database is never capped; its neighbour is, alone
	l, _ = CellLimits(sqlite, cellWith(result.Conditions{IOPS: 100, BPS: 1 << 20, Neighbour: "x1"}))
	if !l.Server.Empty() || l.Neighbour != (limits.Request{IOPS: 100, BPS: 1 << 20}) || l.CPUs != (limits.CPUPlan{}) {
		t.Fatalf("sqlite with a neighbour: %+v", l)
	}
	if l.Unavailable == nil && !strings.Contains(strings.Join(l.Notes, "; "), "fio) runs alone") {
		t.Fatalf("sqlite with a neighbour: no note says fio is capped alone: %v", l.Notes)
	}
	l, _ = CellLimits(sqlite, cellWith(result.Conditions{IOPS: 100}))
	if !l.Neighbour.Empty() || !strings.Contains(strings.Join(l.Notes, "; "), "embedded") {
		t.Fatalf("sqlite without a neighbour: %+v", l)
	}
	// no CPU split is planned for a process that cannot be split
	l, _ = CellLimits(sqlite, cellWith(result.Conditions{}))
	if l.CPUs != (limits.CPUPlan{}) || len(l.Notes) != 0 || l.Unavailable != nil {
		t.Fatalf("sqlite with no conditions: %+v", l)
	}

	if _, err := CellLimits(maria, cellWith(result.Conditions{CPUs: "9999"})); err == nil || !strings.Contains(err.Error(), "--cpus") {
		t.Fatalf("a bad --cpus: %v", err)
	}
	if runtime.NumCPU() >= 2 {
		l, _ = CellLimits(maria, cellWith(result.Conditions{CPUs: "1"}))
		if l.Server.CPUs != "1" || l.CPUs.Client == "" {
			t.Fatalf("--cpus 1: %+v", l)
		}
	}
}

// Redmine in the loop shares the cell's cap with the server: the seed's
// 1G VM holds four puma workers and what is left is enough for every
// server's caches; a cap Redmine alone would fill is refused before
// anything starts, naming Redmine.
func TestTheAppTakesItsShareOfTheMemoryCap(t *testing.T) {
	for _, name := range []string{"mariadb-innodb", "mariadb-rocksdb", "postgres"} {
		c := cellWith(result.Conditions{MemoryBytes: 1 << 30, App: "redmine"})
		c.Clients = 4
		if _, err := CellLimits(mustLookup(t, name), c); err != nil {
			t.Errorf("%s, 1G with Redmine's 4 workers: %v", name, err)
		}
		budget, kept, err := serverBudget(c, c.Conditions.MemoryBytes)
		if err != nil || budget >= 1<<30-600<<20 || !strings.Contains(kept, "4 workers") {
			t.Errorf("%s: the server is sized from %d bytes (%q, %v), not what Redmine leaves", name, budget, kept, err)
		}
		c.Conditions.MemoryBytes = 512 << 20
		if _, err := CellLimits(mustLookup(t, name), c); err == nil || !strings.Contains(err.Error(), "Redmine") {
			t.Errorf("%s, 512M with 4 workers: %v, want a refusal naming Redmine", name, err)
		}
	}
	// without the app the server has the whole cap
	c := cellWith(result.Conditions{MemoryBytes: 1 << 30})
	if budget, kept, _ := serverBudget(c, 1<<30); budget != 1<<30 || kept != "" {
		t.Fatalf("no app: %d %q", budget, kept)
	}
}

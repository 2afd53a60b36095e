package run

import (
	"context"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// checkWithBefore loads a small dataset, then checks it against a "before"
// state that claims one row more than the table has.
func checkWithBefore(t *testing.T, res *plan.Resolved, dir string) workload.Invariants {
	t.Helper()
	ctx := context.Background()
	cell := res.Cells[0]
	tg, _ := target.Lookup(cell.Target)
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(ctx)
	wl, _ := workload.New(cell.Workload, cell.Params)
	w := wl.(workload.SQL)
	ds, _ := w.Dataset(cell.Dataset, 1)
	for _, q := range w.Schema(inst.(target.SQLInstance).Dialect(), ds) {
		if _, err := inst.(target.SQLInstance).DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Load(ctx, inst.(target.SQLInstance).DB(), inst.(target.SQLInstance).Dialect(), ds, nil); err != nil {
		t.Fatal(err)
	}
	before, err := w.Before(ctx, inst.(target.SQLInstance).DB(), inst.(target.SQLInstance).Dialect(), ds)
	if err != nil {
		t.Fatal(err)
	}
	before["rows"]++
	return w.Check(ctx, inst.(target.SQLInstance).DB(), inst.(target.SQLInstance).Dialect(), ds, before, map[string]int64{})
}

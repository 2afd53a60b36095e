package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// On a real Redis, a value changed after the load and a key removed fail
// the cell's check, naming the ids; the reads of the others pass.
func TestANativeWrongValueFailsTheCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	tg := target.Redis{}
	testenv.RequireTarget(t, tg)
	ctx := context.Background()
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: testenv.WorkDir(t), MemoryBudget: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(ctx)
	ep := inst.(target.NativeInstance).Endpoint()
	w := newKV(t, map[string]string{"id_count": "200", "rounds": "1", "warmup": "0"})
	ds, _ := w.Dataset("1000", 1)
	steps, err := w.Native(ep)
	if err != nil {
		t.Fatal(err)
	}
	defer steps.Close()
	if _, err := steps.Load(ctx, ds, nil); err != nil {
		t.Fatal(err)
	}
	ids := w.idsFor(ds)
	changed, gone := ids[0], ids[1]
	for i := 1; gone == changed; i++ {
		gone = ids[i]
	}
	c, err := redisClient(ep)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Do(ctx, c.B().Set().Key(fmt.Sprintf("kv:%d", changed)).Value("1 2").Build())
	c.Do(ctx, c.B().Del().Key(fmt.Sprintf("kv:%d", gone)).Build())
	before, err := steps.Before(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	w.SetClients(1)
	wk, err := steps.NewWorker(ctx, ds, 0)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := wk.Do(ctx); errors.Is(err, workload.ErrClientDone) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	counters := wk.Counters()
	wk.Close()
	inv := steps.Check(ctx, ds, before, counters)
	if inv.OK || !strings.Contains(inv.Failures[0], fmt.Sprintf("id %d: (1, 2), loaded", changed)) || !strings.Contains(inv.Failures[0], fmt.Sprintf("id %d: no row", gone)) {
		t.Fatalf("a changed and a missing row passed: %+v", inv)
	}
}

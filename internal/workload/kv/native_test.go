package kv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"shootout/internal/proto"
	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// On a real Redis, a value changed after the load and a key removed fail
// the cell's check, naming the ids; the reads of the others pass: by the
// single GET (rueidis) and by the batch path's own pipeline, whose last
// batch is partial.
func TestANativeWrongValueFailsTheCheck(t *testing.T) {
	for _, path := range []string{"get", "batch"} {
		t.Run(path, func(t *testing.T) { wrongValueFailsTheCheck(t, path) })
	}
}

func wrongValueFailsTheCheck(t *testing.T, path string) {
	ctx := context.Background()
	ep := startRedis(t)
	w := newKV(t, map[string]string{"id_count": "200", "rounds": "1", "warmup": "0", "path": path, "batch": "16"})
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

// The batch path's pipeline on a real Redis: it logs in as a user or with
// the password alone, reads the database it was given, says which GET
// the server refused while keeping the stream in step for the next
// batch, and refuses a wrong password.
func TestRESPPipeline(t *testing.T) {
	ctx := context.Background()
	ep := startRedis(t)
	ep.Database = "3"
	c, err := redisClient(ep)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, id := range []int64{1, 2, 3} {
		c.Do(ctx, c.B().Set().Key(fmt.Sprintf("kv:%d", id)).Value(string(appendValue(nil, id))).Build())
	}
	c.Do(ctx, c.B().Rpush().Key("kv:4").Element("a list, not a string").Build())

	read := func(p *respPipe, ids ...int64) (map[int64]int, error) {
		got := map[int64]int{}
		err := p.getMany(ids, func(at int, id, v1 int64, v2 float64) {
			if v1 != value1(id) || v2 != value2(id) {
				t.Errorf("kv:%d read (%d, %g)", id, v1, v2)
			}
			got[id] = at
		})
		return got, err
	}
	for _, user := range []string{"", "default"} {
		e := ep
		e.User = user
		p, err := dialRESP(ctx, e)
		if err != nil {
			t.Fatalf("user %q: %v", user, err)
		}
		got, err := read(p, 3, 9, 1, 4, 2)
		if err == nil || !strings.Contains(err.Error(), "GET kv:4: WRONGTYPE") {
			t.Fatalf("user %q: a refused GET gave %v", user, err)
		}
		if fmt.Sprint(got) != "map[1:2 2:4 3:0]" {
			t.Fatalf("user %q: read %v, want kv:3, kv:1, kv:2 at their places and no kv:9", user, got)
		}
		if got, err := read(p, 2, 1); err != nil || fmt.Sprint(got) != "map[1:1 2:0]" {
			t.Fatalf("user %q: the batch after a refused GET read %v, %v", user, got, err)
		}
		p.close()
	}
	e := ep
	e.Password = "not-the-password"
	if p, err := dialRESP(ctx, e); err == nil {
		p.close()
		t.Fatal("a wrong password was let in")
	}
}

// startRedis starts a private redis-server that the test's end stops.
func startRedis(t *testing.T) proto.Endpoint {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real server")
	}
	tg := target.Redis{}
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t), MemoryBudget: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	return inst.(target.NativeInstance).Endpoint()
}

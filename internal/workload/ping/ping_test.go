package ping

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// TestPingOnEveryProtocol: on a private server of each protocol (SQL on
// three flavours), every ping is answered; once the server is stopped a
// ping fails, so an answer cannot have come from the client alone.
func TestPingOnEveryProtocol(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	w, err := workload.New("ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sqlite", "mariadb-innodb", "postgres", "redis", "memcached", "tarantool-memtx"} {
		t.Run(name, func(t *testing.T) {
			tg, err := target.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			testenv.RequireTarget(t, tg)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			inst, err := tg.Start(ctx, target.StartOptions{WorkDir: testenv.WorkDir(t), MemoryBudget: 256 << 20, Clients: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Stop(context.Background())
			wk := newWorker(ctx, t, w, inst)
			defer wk.Close()
			for i := range 200 {
				out, err := wk.Do(ctx)
				if err != nil || out.Other != 1 {
					t.Fatalf("ping %d: %+v, %v", i, out, err)
				}
			}
			if tg.Embedded() {
				return // SQLite answers inside the client
			}
			inst.Stop(ctx)
			short, cancelShort := context.WithTimeout(ctx, 5*time.Second)
			defer cancelShort()
			if out, err := wk.Do(short); err == nil {
				t.Fatalf("a ping was answered with the server stopped: %+v", out)
			}
		})
	}
}

func newWorker(ctx context.Context, t *testing.T, w workload.Workload, inst target.Instance) workload.Worker {
	t.Helper()
	var db *sql.DB
	if in, ok := inst.(target.SQLInstance); ok {
		db = in.DB()
	}
	sess, err := workload.Open(w, inst.Endpoint(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	wk, err := sess.NewWorker(ctx, workload.Dataset{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return wk
}

func TestPingRefusesParametersAndDatasets(t *testing.T) {
	if _, err := workload.New("ping", map[string]string{"rows": "10"}); err == nil {
		t.Error("a parameter was taken")
	}
	if _, err := (Workload{}).Dataset("small", 1); err == nil {
		t.Error("a dataset was taken")
	}
}

package replay

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// lockCycle is a capture whose replay under timing=commit waits for
// itself: B's UPDATE of row 1 came first in the capture and A's waited
// for B's COMMIT. The commit order holds A's COMMIT until B's, but
// nothing holds A's UPDATE until B's (it commits nothing): B, which
// begins only after Z (Z ended before B began), finds the row locked by
// A, a lock the capture never waited for, and A waits for B's commit.
// PostgreSQL sees B waiting for an idle transaction: no deadlock it
// could break, no lock timeout by default; only the stall watch can say.
const lockCycle = `{"type":"header","format":"shootout-capture","version":1,"protocol":"postgresql","start_ns":1000000000}
{"type":"open","session":1,"at_ns":1000000000}
{"type":"open","session":2,"at_ns":1001000000}
{"type":"command","session":1,"seq":1,"kind":"begin","text":"BEGIN","start_ns":1000000000,"end_ns":1000100000}
{"type":"command","session":2,"seq":1,"kind":"query","text":"SELECT pg_sleep(0.3)","start_ns":1002000000,"end_ns":1302000000,"rows":1}
{"type":"close","session":2,"at_ns":1303000000}
{"type":"open","session":3,"at_ns":1400000000}
{"type":"command","session":3,"seq":1,"kind":"begin","text":"BEGIN","start_ns":1401000000,"end_ns":1401100000}
{"type":"command","session":3,"seq":2,"kind":"query","text":"UPDATE t SET v = 3 WHERE id = 1","start_ns":1410000000,"end_ns":1411000000,"affected":1}
{"type":"command","session":1,"seq":2,"kind":"query","text":"UPDATE t SET v = 2 WHERE id = 1","start_ns":1500000000,"end_ns":1601000000,"affected":1}
{"type":"command","session":3,"seq":3,"kind":"commit","text":"COMMIT","start_ns":1600000000,"end_ns":1600500000}
{"type":"close","session":3,"at_ns":1650000000}
{"type":"command","session":1,"seq":3,"kind":"commit","text":"COMMIT","start_ns":1700000000,"end_ns":1700500000}
{"type":"close","session":1,"at_ns":1800000000}
{"type":"end","at_ns":1900000000}
`

// A replay that waits on a lock the capture never waited for, in a
// cycle through its own commit order, is caught by the driver's stall
// watch, which names the statement left unanswered, instead of running
// until the window's end.
func TestTheStallWatchCatchesAReplayDeadlock(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	tg, err := target.Lookup("postgres")
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())
	db := inst.(target.SQLInstance).DB()
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE t (id int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 1)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(map[string]string{"capture": file(t, lockCycle), "timing": "commit"})
	if err != nil {
		t.Fatal(err)
	}
	rw := w.(*Workload)
	rw.SetClients(2)
	if _, err := rw.Before(ctx, db, dialect.Dialect{Flavor: dialect.Postgres}, workload.Dataset{}); err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context, client int) (workload.Worker, error) {
		c, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		return rw.NewWorker(ctx, c, dialect.Dialect{Flavor: dialect.Postgres}, workload.Dataset{}, client)
	}
	// what the server's sessions do while the replay waits: the run's
	// end closes A's connection, which frees the lock
	d := dialect.Dialect{Flavor: dialect.Postgres}
	seen := make(chan string, 1)
	watching, stopWatching := context.WithCancel(ctx)
	go func() {
		last := ""
		for watching.Err() == nil {
			if act, err := d.Activity(watching, db); err == nil && strings.Contains(act, "Lock") {
				last = act
			}
			time.Sleep(100 * time.Millisecond)
		}
		seen <- last
	}()
	start := time.Now()
	_, err = driver.Run(ctx, driver.Config{Clients: 2, Duration: 15 * time.Second, OpNames: rw.Ops(), StallLimit: 2 * time.Second, Classify: dialect.Classify}, connect)
	took := time.Since(start)
	stopWatching()
	act := <-seen
	if !errors.Is(err, driver.ErrStalled) {
		t.Fatalf("the replay ended with %v after %v, want the stall watch's %v", err, took.Round(time.Millisecond), driver.ErrStalled)
	}
	if took > 10*time.Second {
		t.Errorf("the stall was caught after %v: the limit was 2 s", took)
	}
	if !strings.Contains(act, "Lock: transactionid") || !strings.Contains(act, "idle in transaction") {
		t.Errorf("the server's sessions during the stall: %q, want one waiting for a lock held by one idle in its transaction", act)
	}
	t.Logf("%v after %v; the server's sessions during it: %s", err, took.Round(time.Millisecond), act)
}

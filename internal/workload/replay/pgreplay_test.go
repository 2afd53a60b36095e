package replay

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"shootout/internal/capture"
	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// pgLogged is PostgreSQL logging every statement as pgreplay reads it
// (log_statement=all, connections and disconnections) and its duration,
// as shootout reads it.
var pgLogged = map[string]string{"logging_collector": "on", "log_destination": "csvlog", "log_filename": "pg.log",
	"log_min_duration_statement": "0", "log_statement": "all", "log_connections": "on", "log_disconnections": "on",
	"log_timezone": "UTC", "lc_messages": "C"}

// loggedPG starts a private PostgreSQL with pgLogged; stop ends it and
// returns its csvlog.
func loggedPG(t *testing.T) (db *sql.DB, ep target.Instance, stop func() string) {
	t.Helper()
	tg, err := target.Lookup("postgres")
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t), Settings: pgLogged, KeepData: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	return inst.(target.SQLInstance).DB(), inst, func() string {
		if err := inst.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(inst.DataDir(), "log", "pg.csv")
	}
}

// pgApp is the application whose log both replay: two sessions, text
// queries, statements prepared and executed with parameters (pgx's
// extended protocol), a transaction.
func pgApp(t *testing.T, db *sql.DB) {
	ctx := context.Background()
	a, err := db.Conn(ctx)
	must(t, err)
	b, err := db.Conn(ctx)
	must(t, err)
	for _, q := range []string{"CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)"} {
		_, err := a.ExecContext(ctx, q)
		must(t, err)
	}
	for i := 1; i <= 3; i++ {
		var v sql.NullString
		must(t, a.QueryRowContext(ctx, "SELECT v FROM t WHERE id = $1", i).Scan(&v))
		var n int
		must(t, b.QueryRowContext(ctx, "SELECT count(*) FROM t WHERE id >= $1", i).Scan(&n))
	}
	tx, err := a.BeginTx(ctx, nil)
	must(t, err)
	_, err = tx.ExecContext(ctx, "UPDATE t SET v = $1 WHERE id = $2", "c", 3)
	must(t, err)
	must(t, tx.Commit())
	must(t, a.Close())
	must(t, b.Close())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// statements counts the statements a server's csvlog says it ran, per
// fingerprint, of the fingerprints in want (the servers' own sessions
// are in the log too).
func statements(t *testing.T, log string, want map[string]int) map[string]int {
	t.Helper()
	out := filepath.Join(t.TempDir(), "replayed.capture")
	must(t, capture.FromLog(capture.LogOptions{From: log, Format: "csvlog", Out: out}))
	_, lines, err := capture.Read(out)
	must(t, err)
	got := map[string]int{}
	for _, l := range lines {
		if c := l.Command; c != nil && c.Kind != capture.KindPrepare {
			if fp := capture.Fingerprint(capture.ProtoPostgres, c.Text); want[fp] > 0 {
				got[fp]++
			}
		}
	}
	return got
}

// The same csvlog replayed by Debian's pgreplay and by shootout runs the
// same statements on the server: per fingerprint, as many times as the
// log holds them.
func TestPgreplayAndShootoutReplayTheSameStatements(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL three times")
	}
	bin, err := exec.LookPath("pgreplay")
	if err != nil {
		if testenv.CI() {
			t.Fatal("CI=true and no pgreplay: apt-get install pgreplay")
		}
		t.Skip("no pgreplay: apt-get install pgreplay")
	}
	db, _, stop := loggedPG(t)
	pgApp(t, db)
	log := stop()
	file := filepath.Join(t.TempDir(), "app.capture")
	must(t, capture.FromLog(capture.LogOptions{From: log, Format: "csvlog", Out: file}))
	want := map[string]int{}
	for _, fp := range []string{"create table t(id int primary key, v text)", "insert into t values(?+)", "select v from t where id = ?",
		"select count(*) from t where id >= ?", "begin", "update t set v = ? where id = ?", "commit"} {
		want[fp] = 1
	}
	want = statements(t, log, want)
	if want["select v from t where id = ?"] != 3 || want["update t set v = ? where id = ?"] != 1 {
		t.Fatalf("the application's log holds %v", want)
	}

	// pgreplay: the log as it is, on a server of its own
	_, inst, stopPG := loggedPG(t)
	ep := inst.Endpoint()
	host, port := ep.HostPort()
	cmd := exec.Command(bin, "-c", "-j", "-h", host, "-p", fmt.Sprint(port), "-W", ep.Password, log)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgreplay: %v\n%s", err, out)
	}
	byPgreplay := statements(t, stopPG(), want)

	// shootout: the capture read from the same log, each session in its
	// order, each statement after the commits logged before it began
	db2, _, stopPG2 := loggedPG(t)
	w, err := New(map[string]string{"capture": file, "timing": "commit"})
	must(t, err)
	rw := w.(*Workload)
	rw.SetClients(len(rw.s.lanes))
	ctx := context.Background()
	d := dialect.Dialect{Flavor: dialect.Postgres}
	_, err = rw.Before(ctx, db2, d, workload.Dataset{})
	must(t, err)
	connect := func(ctx context.Context, client int) (workload.Worker, error) {
		c, err := db2.Conn(ctx)
		if err != nil {
			return nil, err
		}
		return rw.NewWorker(ctx, c, d, workload.Dataset{}, client)
	}
	res, err := driver.Run(ctx, driver.Config{Clients: len(rw.s.lanes), Duration: 30 * time.Second, OpNames: rw.Ops(), Classify: dialect.Classify}, connect)
	must(t, err)
	// the log holds the target's own sessions too (its CREATE DATABASE
	// fails again); the application's statements must answer as logged
	inv := rw.Check(ctx, db2, d, workload.Dataset{}, nil, res.Counters)
	for _, l := range inv.Drift {
		for fp := range want {
			if strings.HasPrefix(l, short(fp)+":") {
				t.Errorf("shootout's replay: %s", l)
			}
		}
	}
	byShootout := statements(t, stopPG2(), want)

	for _, fp := range slices.Sorted(maps.Keys(want)) {
		if byPgreplay[fp] != want[fp] || byShootout[fp] != want[fp] {
			t.Errorf("%s: the log %d, pgreplay ran it %d times, shootout %d", fp, want[fp], byPgreplay[fp], byShootout[fp])
		}
	}
	t.Logf("per fingerprint, the log, pgreplay and shootout: %v; pgreplay said: %s", want, strings.Join(strings.Fields(string(out)), " "))
}

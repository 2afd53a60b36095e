package replay

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// twoTypes is a capture of two kinds of session: two of the web
// application's (its user and program) with two and one statements, and
// one of a cron job's with three.
const twoTypes = header +
	`{"type":"open","session":1,"at_ns":1000,"user":"app","database":"shop","attrs":{"program_name":"php"}}` + "\n" +
	`{"type":"command","session":1,"seq":1,"kind":"query","text":"CREATE TABLE t (a int)","start_ns":1100,"end_ns":1200}` + "\n" +
	`{"type":"command","session":1,"seq":2,"kind":"query","text":"SELECT 1","start_ns":1300,"end_ns":1400,"rows":1}` + "\n" +
	`{"type":"close","session":1,"at_ns":1500}` + "\n" +
	`{"type":"open","session":2,"at_ns":2000,"user":"cron","database":"shop"}` + "\n" +
	`{"type":"command","session":2,"seq":1,"kind":"query","text":"INSERT INTO t VALUES (1)","start_ns":2100,"end_ns":2200,"affected":1}` + "\n" +
	`{"type":"command","session":2,"seq":2,"kind":"query","text":"INSERT INTO t VALUES (2)","start_ns":2300,"end_ns":2400,"affected":1}` + "\n" +
	`{"type":"command","session":2,"seq":3,"kind":"query","text":"SELECT count(*) FROM t","start_ns":2500,"end_ns":2600,"rows":1}` + "\n" +
	`{"type":"close","session":2,"at_ns":2700}` + "\n" +
	`{"type":"open","session":3,"at_ns":3000,"user":"app","database":"shop","attrs":{"program_name":"php"}}` + "\n" +
	`{"type":"command","session":3,"seq":1,"kind":"query","text":"SELECT 2","start_ns":3100,"end_ns":3200,"rows":1}` + "\n" +
	`{"type":"close","session":3,"at_ns":3300}` + "\n" + end

// A replay records, per kind of session, the sessions it began and
// their timed statements, from every worker, once each however often a
// worker is closed.
func TestAReplayRecordsEachSessionType(t *testing.T) {
	w, err := New(map[string]string{"capture": file(t, twoTypes), "timing": "session"})
	if err != nil {
		t.Fatal(err)
	}
	rw := w.(*Workload)
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rw.SetClients(1)
	if _, err := rw.Before(ctx, db, dialect.Dialect{}, workload.Dataset{}); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wk, err := rw.NewWorker(ctx, c, dialect.Dialect{}, workload.Dataset{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := wk.Do(ctx); err != nil {
			if err != workload.ErrClientDone {
				t.Fatal(err)
			}
			break
		}
	}
	wk.Close()
	wk.Close()
	inv := rw.Check(ctx, db, dialect.Dialect{}, workload.Dataset{}, nil, wk.Counters())
	got := map[string][2]int64{}
	for _, st := range inv.SessionTypes {
		got[st.Type] = [2]int64{st.Sessions, st.Statements.Count}
		if st.Statements.SumMs <= 0 || st.Statements.P99Ms < st.Statements.P50Ms {
			t.Errorf("%s: statements %+v, want a time and p99 ≥ p50", st.Type, st.Statements)
		}
	}
	want := map[string][2]int64{"app@shop php": {2, 3}, "cron@shop -": {1, 3}}
	if len(got) != len(want) || got["app@shop php"] != want["app@shop php"] || got["cron@shop -"] != want["cron@shop -"] {
		t.Errorf("sessions and statements per type %v, want %v", got, want)
	}
	if inv.SessionTypes[0].Type != "app@shop php" {
		t.Errorf("first type %q, want the capture's first, app@shop php", inv.SessionTypes[0].Type)
	}
}

package redmine

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/testenv/lostanswer"
)

// TestACommitLostWithItsConnectionIsSettledByItsFirstRow: a COMMIT whose
// answer is lost may have committed (the CI failure this guards against:
// a KILL during COMMIT left one journal more than the clients counted).
// Check counts it as committed exactly when its first row is there.
func TestACommitLostWithItsConnectionIsSettledByItsFirstRow(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "doubt.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE journals (id INTEGER PRIMARY KEY AUTOINCREMENT, notes TEXT)"); err != nil {
		t.Fatal(err)
	}
	lost, err := sql.Open(lostanswer.DriverName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer lost.Close()
	d := dialect.Dialect{Flavor: dialect.SQLite}
	w := &Workload{}
	comment := func(then string) error {
		conn, err := lost.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		lostanswer.Set("COMMIT", 0, then == "COMMIT")
		defer lostanswer.Set("", 0, false)
		wk := w.newWorker(conn, d, nil, rand.New(rand.NewPCG(1, 2)), 0)
		if err := wk.begin(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := wk.ins(ctx, "journals.insert", "INSERT INTO journals (notes) VALUES (?)", "a comment"); err != nil {
			t.Fatal(err)
		}
		wk.pending.journals++
		wk.pending.comments++
		err = wk.commit(ctx)
		if c := wk.Counters(); c["journals"] != 0 {
			t.Errorf("an unanswered commit was counted as committed: %v", c)
		}
		return err
	}
	if err := comment("COMMIT"); dialect.Classify(err) != dialect.ClassConnectionLost {
		t.Fatalf("the lost answer should fail the commit as a lost connection, got %v", err)
	}
	if err := comment("ROLLBACK"); err == nil {
		t.Fatal("the lost answer should fail the commit")
	}
	if len(w.doubts) != 2 {
		t.Fatalf("two commits went unanswered, %d recorded in doubt", len(w.doubts))
	}

	counters := map[string]int64{"journals": 7, "comments": 5}
	var failures, checks []string
	settled := w.settleDoubts(ctx, db, d, counters,
		func(f string, a ...any) { failures = append(failures, f) },
		func(f string, a ...any) { checks = append(checks, f) })
	if len(failures) > 0 {
		t.Fatalf("settling failed: %v", failures)
	}
	if settled["journals"] != 8 || settled["comments"] != 6 {
		t.Errorf("the commit that took effect should be counted once and the one rolled back not at all: journals %d (want 8), comments %d (want 6)",
			settled["journals"], settled["comments"])
	}
	if counters["journals"] != 7 {
		t.Errorf("the clients' own counters were changed: %v", counters)
	}
	if len(checks) != 1 {
		t.Errorf("the settling should be listed among the checks: %v", checks)
	}
}

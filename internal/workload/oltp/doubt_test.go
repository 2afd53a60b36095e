package oltp

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/dialect"
	"shootout/internal/testenv/lostanswer"
)

// A write whose answer is lost with its connection may have taken effect:
// Check must accept the table with or without it, and nothing else. Each
// case runs events through a SQLite driver that loses the answers of the
// chosen statements after they ran (took) or before (not).
func TestWritesLostWithTheirConnectionAreSettledByTheTable(t *testing.T) {
	sqlite := dialect.Dialect{Flavor: dialect.SQLite}
	for _, tc := range []struct {
		name, test string
		params     map[string]string
		lose       string // the statements whose answers are lost
		pass       int    // how many of them are answered first
	}{
		// a COMMIT: the whole transaction is in doubt
		{"commit", "oltp_write_only", map[string]string{"index_updates": "2", "non_index_updates": "0", "delete_inserts": "0"}, "COMMIT", 0},
		// each statement commits by itself: one update is in doubt
		{"autocommit", "oltp_update_index", nil, "UPDATE", 0},
		// skip_trx: the first update of the event committed and is
		// counted, the second is in doubt
		{"skip_trx", "oltp_write_only", map[string]string{"index_updates": "2", "non_index_updates": "0", "delete_inserts": "0", "skip_trx": "true"}, "UPDATE", 1},
		// rows: a delete and its insert, each on its own
		{"rows", "oltp_write_only", map[string]string{"index_updates": "0", "non_index_updates": "0", "delete_inserts": "1", "skip_trx": "true"}, "INSERT", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer lostanswer.Set("", 0, false)
			w := newTest(t, tc.test, tc.params)
			path := filepath.Join(t.TempDir(), "s.db")
			db, ds := sqliteAt(t, w, path, 1000)
			ctx := context.Background()
			before, err := w.Before(ctx, db, sqlite, ds)
			if err != nil {
				t.Fatal(err)
			}
			lost, err := sql.Open(lostanswer.DriverName, path+"?_busy_timeout=5000")
			if err != nil {
				t.Fatal(err)
			}
			defer lost.Close()
			var counted []map[string]int64
			event := func(took bool) {
				t.Helper()
				conn, err := lost.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				wk, err := w.NewWorker(ctx, conn, sqlite, ds, len(counted))
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 3; i++ { // answered events
					if _, err := wk.Do(ctx); err != nil {
						t.Fatal(err)
					}
				}
				lostanswer.Set(tc.lose, tc.pass, took)
				_, err = wk.Do(ctx)
				lostanswer.Set("", 0, false)
				if dialect.Classify(err) != dialect.ClassConnectionLost {
					t.Fatalf("the lost answer should fail the event as a lost connection, got %v", err)
				}
				wk.(*worker).Abort(ctx)
				counted = append(counted, wk.Counters())
				wk.Close()
			}
			event(true)
			event(false)
			if len(w.doubts) != 2 {
				t.Fatalf("two writes went unanswered, %d recorded in doubt", len(w.doubts))
			}
			sum := map[string]int64{}
			for _, c := range counted {
				for k, v := range c {
					sum[k] += v
				}
			}
			inv := w.Check(ctx, db, sqlite, ds, before, sum)
			if !inv.OK {
				t.Fatalf("the table with one lost write in effect and one not was refused: %v", inv.Failures)
			}
			if !strings.Contains(strings.Join(inv.Checked, "; "), "2 writes went unanswered when their connection was lost: 1 of them taking effect explain") {
				t.Errorf("the settling is not among the checks: %v", inv.Checked)
			}
			// a change no lost write could have made is still a failure
			if _, err := db.Exec("DELETE FROM sbtest1 WHERE id IN (SELECT id FROM sbtest1 LIMIT 3)"); err != nil {
				t.Fatal(err)
			}
			if inv := w.Check(ctx, db, sqlite, ds, before, sum); inv.OK {
				t.Fatalf("three rows deleted behind the clients' back were explained away: %v", inv.Checked)
			}
		})
	}
}

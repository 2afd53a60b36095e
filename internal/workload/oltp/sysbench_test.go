package oltp

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/testenv/lostanswer"
	"shootout/internal/workload"
)

func newTest(t *testing.T, name string, params map[string]string) *Workload {
	t.Helper()
	w, err := workload.New(name, params)
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// sqliteWith loads a small sbtest1 into a private SQLite file.
func sqliteWith(t *testing.T, w *Workload, rows int64) (*sql.DB, workload.Dataset) {
	t.Helper()
	return sqliteAt(t, w, filepath.Join(t.TempDir(), "s.db"), rows)
}

// sqliteAt loads a small sbtest1 into the SQLite file at path.
func sqliteAt(t *testing.T, w *Workload, path string, rows int64) (*sql.DB, workload.Dataset) {
	t.Helper()
	ds, _ := w.Dataset("1000", 1)
	ds.Rows = rows
	return lostanswer.Loaded(t, w, path, ds), ds
}

// TestLoopCountsPerTransaction: every *_updates and delete_inserts count
// runs its statement that many times per event, as oltp_common.lua does.
func TestLoopCountsPerTransaction(t *testing.T) {
	w := newTest(t, "oltp_write_only", map[string]string{"index_updates": "3", "non_index_updates": "2", "delete_inserts": "2"})
	db, ds := sqliteWith(t, w, 1000)
	ctx := context.Background()
	conn, _ := db.Conn(ctx)
	wk, err := w.NewWorker(ctx, conn, dialect.Dialect{Flavor: dialect.SQLite}, ds, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wk.Close()
	for i := 0; i < 5; i++ {
		out, err := wk.Do(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if out.Writes != 3+2+2*2 || out.Other != 2 {
			t.Fatalf("event %d: %d writes and %d BEGIN/COMMIT, want 9 and 2", i, out.Writes, out.Other)
		}
	}
}

func TestUniqueInsertIDsNeverCollide(t *testing.T) {
	w := newTest(t, "oltp_insert", map[string]string{"auto_inc": "false"})
	seen := map[int64]bool{}
	for i := 0; i < 200000; i++ {
		id := w.uniqueID(1000000)
		if seen[id] || (id >= 1 && id <= 1000000) || id < -1<<31 || id >= 1<<31 {
			t.Fatalf("draw %d: id %d repeats, hits the loaded range or leaves INT", i, id)
		}
		seen[id] = true
	}
	// four clients inserting at once on one table: no duplicate key at all
	db, ds := sqliteWith(t, w, 1000)
	ctx := context.Background()
	errs := make(chan error, 4)
	for c := 0; c < 4; c++ {
		go func(c int) {
			conn, _ := db.Conn(ctx)
			wk, err := w.NewWorker(ctx, conn, dialect.Dialect{Flavor: dialect.SQLite}, ds, c)
			if err != nil {
				errs <- err
				return
			}
			defer wk.Close()
			for i := 0; i < 300; i++ {
				if _, err := wk.Do(ctx); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(c)
	}
	for c := 0; c < 4; c++ {
		if err := <-errs; err != nil {
			t.Fatalf("insert with client-chosen ids: %v", err)
		}
	}
	var n int64
	db.QueryRow("SELECT COUNT(*) FROM sbtest1").Scan(&n)
	if n != 1000+4*300 {
		t.Fatalf("%d rows, want %d", n, 1000+4*300)
	}
}

func TestSecondaryAndTableOptions(t *testing.T) {
	w := newTest(t, "oltp_read_write", map[string]string{"secondary": "true", "create_table_options": "ROW_FORMAT=COMPRESSED"})
	ds, _ := w.Dataset("1000", 1)
	my := strings.Join(w.Schema(dialect.Dialect{Flavor: dialect.MySQL, Engine: "innodb"}, ds), "\n")
	if !strings.Contains(my, "KEY xid (id)") || strings.Contains(my, "PRIMARY KEY") || !strings.HasSuffix(my, "ENGINE=innodb ROW_FORMAT=COMPRESSED") {
		t.Fatalf("MySQL DDL with secondary and table options:\n%s", my)
	}
	pg := dialect.Dialect{Flavor: dialect.Postgres}
	if s := strings.Join(w.Schema(pg, ds), "\n"); strings.Contains(s, "KEY") {
		t.Fatalf("PostgreSQL has no inline KEY:\n%s", s)
	}
	if s := strings.Join(w.PostLoad(pg, ds), "\n"); !strings.Contains(s, "CREATE INDEX xid_1 ON sbtest1(id)") {
		t.Fatalf("PostgreSQL gets the id index after the load:\n%s", s)
	}
	if _, err := workload.New("oltp_read_write", map[string]string{"errors": "ignore"}); err == nil || !strings.Contains(err.Error(), "want sysbench") {
		t.Fatalf("a bad errors= must name the valid values: %v", err)
	}
}

func TestReconnectEveryNEvents(t *testing.T) {
	w := newTest(t, "oltp_point_select", map[string]string{"reconnect": "3"})
	db, ds := sqliteWith(t, w, 1000)
	ctx := context.Background()
	conn, _ := db.Conn(ctx)
	wk, _ := w.NewWorker(ctx, conn, dialect.Dialect{Flavor: dialect.SQLite}, ds, 0)
	defer wk.Close()
	rc := wk.(workload.Reconnecter)
	for i := 1; i <= 3; i++ {
		if _, err := wk.Do(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rc.WantsReconnect(); got != (i == 3) {
			t.Fatalf("after %d events WantsReconnect = %v", i, got)
		}
	}
}

func TestSysbenchErrorSemantics(t *testing.T) {
	w := newTest(t, "oltp_read_write", nil)
	wk := &worker{w: w}
	for _, c := range []struct {
		err        error
		again, unl bool
	}{
		{&mysql.MySQLError{Number: 1213}, true, true},
		{&mysql.MySQLError{Number: 1205}, true, true},
		{&mysql.MySQLError{Number: 1020}, true, true},
		{&mysql.MySQLError{Number: 1062}, false, true}, // not in sysbench's default list: ends the run
		{&pgconn.PgError{Code: "40P01"}, true, true},
		{&pgconn.PgError{Code: "23505"}, true, true},
	} {
		if again, unl := wk.Restart(c.err); again != c.again || unl != c.unl {
			t.Errorf("%v: restart %v unlimited %v, want %v %v", c.err, again, unl, c.again, c.unl)
		}
	}
	retry := &worker{w: newTest(t, "oltp_read_write", map[string]string{"errors": "retry"})}
	if again, unl := retry.Restart(&mysql.MySQLError{Number: 1062}); !again || unl {
		t.Errorf("errors=retry retries a duplicate key at most max_retries times: %v %v", again, unl)
	}
}

package kv

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

func newKV(t *testing.T, params map[string]string) *Workload {
	t.Helper()
	w, err := workload.New("kv", params)
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// A read that returns another value, or no row, fails the cell's check.
func TestAWrongRowFailsTheCheck(t *testing.T) {
	w := newKV(t, nil)
	wk := &worker{w: w}
	wk.check(7, value1(7), value2(7))
	if inv := w.Check(context.Background(), nil, dialect.Dialect{}, workload.Dataset{}, nil, map[string]int64{"rows_read": wk.rows}); !inv.OK {
		t.Fatalf("a right row failed: %+v", inv)
	}
	wk.check(8, value1(8)+1, value2(8))
	w.miss("id 9: no row")
	inv := w.Check(context.Background(), nil, dialect.Dialect{}, workload.Dataset{}, nil, map[string]int64{"rows_read": wk.rows})
	if inv.OK || !strings.Contains(inv.Failures[0], "2 of 3 reads") || !strings.Contains(inv.Failures[0], "id 8:") {
		t.Fatalf("wrong rows passed: %+v", inv)
	}
}

// The ids are the user's file when given, checked line by line and
// against the dataset; else drawn from the seed, the same every time.
func TestIDs(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("1\n2\nthree\n"), 0o644)
	if _, err := workload.New("kv", map[string]string{"ids": bad}); err == nil || !strings.Contains(err.Error(), "bad.txt:3:") {
		t.Fatalf("a non-numeric line: %v", err)
	}
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte("1\n2000\n"), 0o644)
	w := newKV(t, map[string]string{"ids": big})
	if _, err := w.Dataset("1000", 1); err == nil || !strings.Contains(err.Error(), "big.txt:2: id 2000 is not in the dataset") {
		t.Fatalf("an id past the table: %v", err)
	}
	if _, err := workload.New("kv", map[string]string{"path": "memcache"}); err == nil || !strings.Contains(err.Error(), "want prepared, text, handler") {
		t.Fatalf("an unknown path: %v", err)
	}
	g := newKV(t, map[string]string{"id_count": "500"})
	ds, _ := g.Dataset("10k", 3)
	a, b := g.idsFor(ds), newKV(t, map[string]string{"id_count": "500"}).idsFor(ds)
	if len(a) != 500 || ds.Rows != 10000 {
		t.Fatalf("%d ids over %d rows", len(a), ds.Rows)
	}
	for i := range a {
		if a[i] != b[i] || a[i] < 1 || a[i] > ds.Rows {
			t.Fatalf("id %d: %d and %d", i, a[i], b[i])
		}
	}
}

// The stored value reads back to the values loaded, and anything else is
// refused rather than misread.
func TestValueText(t *testing.T) {
	for _, id := range []int64{1, 2, 77, 10_000_000, 105_000_000} {
		v1, v2, err := parseValue(appendValue(nil, id))
		if err != nil || v1 != value1(id) || v2 != value2(id) {
			t.Errorf("id %d: (%d, %g, %v), want (%d, %g)", id, v1, v2, err, value1(id), value2(id))
		}
	}
	if v1, v2, err := parseValue([]byte("-12 0.5")); err != nil || v1 != -12 || v2 != 0.5 {
		t.Errorf("-12 0.5: %d %g %v", v1, v2, err)
	}
	for _, bad := range []string{"", "12", "12 ", " 1.5", "x 1", "1 y", "1  2", "99999999999999999999 1"} {
		if _, _, err := parseValue([]byte(bad)); err == nil {
			t.Errorf("%q was read as a value", bad)
		}
	}
}

// Where each connection has a cache of its own (SQLite), a client's
// connection reads its slice before it is handed over; on a server,
// whose cache the warm-up already filled, it does not.
func TestSQLiteClientsWarmTheirOwnConnection(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "kv.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lite := dialect.Dialect{Flavor: dialect.SQLite}
	w := newKV(t, map[string]string{"id_count": "400"})
	ds, err := w.Dataset("2000", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range w.Schema(lite, ds) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Load(ctx, db, lite, ds, nil); err != nil {
		t.Fatal(err)
	}
	w.SetClients(4)
	slice, _ := w.sliceOf(ds, 1)
	distinct := map[int64]bool{}
	for _, id := range slice {
		distinct[id] = true
	}
	for _, c := range []struct {
		d    dialect.Dialect
		want int64
	}{{lite, int64(len(distinct))}, {dialect.Dialect{Flavor: dialect.MySQL}, 0}} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wk, err := w.NewWorker(ctx, conn, c.d, ds, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := wk.(*worker).warmed; got != c.want {
			t.Errorf("%s: the client's connection warmed %d rows, want %d", c.d.Flavor, got, c.want)
		}
		wk.Close()
	}
}

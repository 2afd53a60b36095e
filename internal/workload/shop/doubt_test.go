package shop

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/dialect"
	"shootout/internal/testenv/lostanswer"
	"shootout/internal/workload"
)

// A checkout whose COMMIT answer is lost with its connection may have
// committed: Check counts it exactly when its order is there. A cart row,
// which commits by itself, may be there or not. Each write is lost once
// having taken effect and once not.
func TestCheckoutsLostWithTheirConnectionAreSettled(t *testing.T) {
	ctx := context.Background()
	wl, err := workload.New("shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := wl.(*Workload)
	d := dialect.Dialect{Flavor: dialect.SQLite}
	ds, err := w.Dataset("1000", 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shop.db")
	db := lostanswer.Loaded(t, w, path, ds)
	before, err := w.Before(ctx, db, d, ds)
	if err != nil {
		t.Fatal(err)
	}
	lost, err := sql.Open(lostanswer.DriverName, "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer lost.Close()
	defer lostanswer.Set("", 0, false)

	sum := map[string]int64{}
	checkout := func(lose string, took bool) {
		t.Helper()
		conn, err := lost.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wk, err := w.NewWorker(ctx, conn, d, ds, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer wk.Close()
		if err := wk.(*worker).checkout(ctx); err != nil { // answered
			t.Fatal(err)
		}
		lostanswer.Set(lose, 0, took)
		err = wk.(*worker).checkout(ctx)
		lostanswer.Set("", 0, false)
		if dialect.Classify(err) != dialect.ClassConnectionLost {
			t.Fatalf("%s lost: want a lost connection, got %v", lose, err)
		}
		wk.Abort(ctx)
		for k, v := range wk.Counters() {
			sum[k] += v
		}
	}
	for _, lose := range []string{"COMMIT", "INSERT INTO CARTS", "INSERT INTO CART_ITEMS"} {
		checkout(lose, true)
		checkout(lose, false)
	}
	inv := w.Check(ctx, db, d, ds, before, sum)
	checked := strings.Join(inv.Checked, "; ")
	if !inv.OK {
		t.Fatalf("lost writes, half of them in effect, were refused: %v (checked: %s)", inv.Failures, checked)
	}
	for _, want := range []string{"2 checkouts' COMMITs went unanswered when their connection was lost: 1 took effect",
		"carts: ", "+ 1 of the 2 inserts that went unanswered", "cart_items: "} {
		if !strings.Contains(checked, want) {
			t.Errorf("the checks do not say %q: %s", want, checked)
		}
	}
	// an order no client wrote is still a failure
	if _, err := db.Exec("INSERT INTO orders (cart_id, customer, email, phone, address, total, status, created_at) SELECT cart_id, customer, email, phone, address, total, status, created_at FROM orders LIMIT 1"); err != nil {
		t.Fatal(err)
	}
	if inv := w.Check(ctx, db, d, ds, before, sum); inv.OK {
		t.Fatalf("an order written behind the clients' back was explained away: %v", inv.Checked)
	}
}

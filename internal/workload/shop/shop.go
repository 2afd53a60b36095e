// Package shop is seed 001's web shop: a products table of ~200 columns
// joined to ten lookup tables, and the shop's 50 most visited pages, each
// the statements a classic PHP or Perl shop sends to render it, walked as
// siege walks urls.txt. One operation is one page.
package shop

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

func init() {
	workload.Register(workload.Spec{Name: "shop",
		Description: "web shop (seed 001): 40,000 products × ~200 columns and ten lookup tables; one operation = one of the shop's 50 most visited pages, walked in order as siege -f urls.txt (98% reads, 2% checkout writes)",
		Params: []workload.Param{
			{Name: "order", Kind: workload.Text, Default: "list", Valid: []string{"list", "random"},
				Help: "list (siege's walk down urls.txt) or random (siege -i: pages drawn by their hits)"},
			{Name: "load_parallel", Kind: workload.Int, Default: "4", Min: 1, Max: 64, Help: "goroutines generating rows while loading"},
		},
		New: func(v workload.Values) (workload.Workload, error) {
			opt := options{Random: v.Text("order") == "random", LoadParallel: v.Int("load_parallel")}
			return &Workload{opt: opt, worlds: map[string]*world{}}, nil
		},
	})
}

type options struct {
	// Random draws pages by their hits (siege -i) instead of walking the
	// list from the top
	Random       bool
	LoadParallel int
}

// Workload is the shop, configured.
type Workload struct {
	opt options

	mu     sync.Mutex
	worlds map[string]*world
	// the first few pages that read other rows than the data holds
	wrongs  []string
	wrongsN int64
	// writes whose answer was lost with the connection (a KILL, a crash
	// between the commit and the answer): checkouts' COMMITs, settled by
	// their order's row, and the cart rows that commit one by one, which
	// may each be there or not
	lostCheckouts []lostCheckout
	lostInserts   map[string]int64 // by table
}

// lostCheckout is a checkout whose COMMIT went unanswered: its order, if
// it committed, is the one of its cart.
type lostCheckout struct {
	cart    int64
	pending counts
}

func (w *Workload) addLostCheckout(c lostCheckout) {
	w.mu.Lock()
	w.lostCheckouts = append(w.lostCheckouts, c)
	w.mu.Unlock()
}

func (w *Workload) addLostInsert(table string) {
	w.mu.Lock()
	if w.lostInserts == nil {
		w.lostInserts = map[string]int64{}
	}
	w.lostInserts[table]++
	w.mu.Unlock()
}

func (w *Workload) Name() string { return "shop" }
func (w *Workload) Description() string {
	return "web shop (seed 001): the 50 most visited pages of a 40,000-product shop"
}
func (w *Workload) Ops() []string          { return []string{"page"} }
func (w *Workload) DefaultDataset() string { return "40000" }

// Version names the pages' definition.
func (w *Workload) Version() string { return "1" }

// Dataset is a number of products: the seed's shop had 40,000 (~300 MB in
// MyISAM); tests use a few thousand.
func (w *Workload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	n, err := strconv.Atoi(spec)
	if err != nil || n < 1000 || n > 10_000_000 {
		return workload.Dataset{}, fmt.Errorf("dataset %q: want a number of products from 1000 to 10000000 (the seed's shop: 40000)", spec)
	}
	return workload.Dataset{Name: spec, Rows: int64(n), Seed: seed, LoadRows: shape{n}.loadRows()}, nil
}

func (w *Workload) world(ds workload.Dataset) (*world, error) {
	n, err := strconv.Atoi(ds.Name)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: want a number of products", ds.Name)
	}
	key := fmt.Sprintf("%d/%d", n, ds.Seed)
	w.mu.Lock()
	defer w.mu.Unlock()
	if wd := w.worlds[key]; wd != nil {
		return wd, nil
	}
	wd := newWorld(ds.Seed, shape{n})
	w.worlds[key] = wd
	return wd, nil
}

func (w *Workload) wrong(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wrongsN++
	if len(w.wrongs) < 3 {
		w.wrongs = append(w.wrongs, msg)
	}
}

func (w *Workload) Schema(d dialect.Dialect, ds workload.Dataset) []string {
	return workload.CreateTables(d, tables())
}

func (w *Workload) PostLoad(d dialect.Dialect, ds workload.Dataset) []string {
	return workload.IndexTables(d, tables())
}

func (w *Workload) Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	return workload.LoadBatches(ctx, db, d, batches(ds.Seed, shape{int(ds.Rows)}), w.opt.LoadParallel, progress)
}

// Loaded is true when the products are there and no checkout has run.
func (w *Workload) Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (bool, error) {
	var products, orders int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM products").Scan(&products); err != nil {
		return false, nil
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM orders").Scan(&orders); err != nil {
		return false, nil
	}
	return products == ds.Rows && orders == 0, nil
}

// counted are the tables whose rows the checkouts add.
var counted = []string{"carts", "cart_items", "orders", "order_items"}

func (w *Workload) Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (workload.State, error) {
	st := workload.State{}
	for _, t := range counted {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("read %s before the run: %w", t, err)
		}
		st[t] = n
	}
	var stock, reserved sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT SUM(stock), SUM(reserved) FROM products").Scan(&stock, &reserved); err != nil {
		return nil, fmt.Errorf("read the stock before the run: %w", err)
	}
	st["stock"], st["reserved"] = stock.Int64, reserved.Int64
	w.mu.Lock()
	w.wrongs, w.wrongsN = nil, 0
	w.lostCheckouts, w.lostInserts = nil, nil
	w.mu.Unlock()
	return st, nil
}

// settleLostCheckouts adds to a copy of the clients' counters the
// checkouts whose COMMIT went unanswered but took effect, which it tells
// by their order's row.
func (w *Workload) settleLostCheckouts(ctx context.Context, db *sql.DB, d dialect.Dialect, counters map[string]int64,
	failf func(string, ...any), inv *workload.Invariants) map[string]int64 {
	w.mu.Lock()
	lost := w.lostCheckouts
	w.mu.Unlock()
	if len(lost) == 0 {
		return counters
	}
	settled := maps.Clone(counters)
	took := 0
	for _, c := range lost {
		var n int64
		if err := db.QueryRowContext(ctx, d.Bind("SELECT COUNT(*) FROM orders WHERE cart_id = ?"), c.cart).Scan(&n); err != nil {
			failf("read the order of cart %d, whose checkout's COMMIT went unanswered: %v", c.cart, err)
			continue
		}
		if n == 0 {
			continue
		}
		took++
		settled["orders"] += c.pending.orders
		settled["order_items"] += c.pending.orderItems
		settled["qty_sold"] += c.pending.qty
	}
	inv.Checked = append(inv.Checked, fmt.Sprintf("%d checkouts' COMMITs went unanswered when their connection was lost: %d took effect (their order is there) and are counted as committed",
		len(lost), took))
	return settled
}

// Check: the rows the checkouts committed are there, the stock moved by
// what they sold, and every page whose rows the generator knows read them.
func (w *Workload) Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	inv := workload.Invariants{OK: true}
	failf := func(format string, args ...any) {
		inv.OK = false
		inv.Failures = append(inv.Failures, fmt.Sprintf(format, args...))
	}
	counters = w.settleLostCheckouts(ctx, db, d, counters, failf, &inv)
	w.mu.Lock()
	lostInserts := maps.Clone(w.lostInserts)
	w.mu.Unlock()
	for _, t := range counted {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t).Scan(&n); err != nil {
			failf("read %s: %v", t, err)
			continue
		}
		want, lost := before[t]+counters[t], lostInserts[t]
		switch {
		case n == want:
			inv.Checked = append(inv.Checked, fmt.Sprintf("%s: %d rows = %d before + %d committed", t, n, before[t], counters[t]))
		case lost > 0 && n > want && n <= want+lost:
			// each unanswered insert is there or not, whichever
			inv.Checked = append(inv.Checked, fmt.Sprintf("%s: %d rows = %d before + %d committed + %d of the %d inserts that went unanswered when their connection was lost",
				t, n, before[t], counters[t], n-want, lost))
		case lost > 0:
			failf("%s: %d rows, want %d before + %d committed, and at most %d more inserts that went unanswered", t, n, before[t], counters[t], lost)
		default:
			failf("%s: %d rows, want %d before + %d committed", t, n, before[t], counters[t])
		}
	}
	var stock, reserved sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT SUM(stock), SUM(reserved) FROM products").Scan(&stock, &reserved); err != nil {
		failf("read the stock: %v", err)
	} else if q := counters["qty_sold"]; stock.Int64 != before["stock"]-q || reserved.Int64 != before["reserved"]+q {
		failf("stock %d and reserved %d, want %d and %d after %d items sold", stock.Int64, reserved.Int64, before["stock"]-q, before["reserved"]+q, q)
	} else {
		inv.Checked = append(inv.Checked, fmt.Sprintf("stock moved to reserved by the %d items sold", q))
	}
	w.mu.Lock()
	wrongs, n := append([]string(nil), w.wrongs...), w.wrongsN
	w.mu.Unlock()
	if n > 0 {
		failf("%d page reads found other rows than the data holds: %s", n, strings.Join(wrongs, "; "))
	} else {
		inv.Checked = append(inv.Checked, fmt.Sprintf("%d counts and products read by the pages are what the generated data holds", counters["checked_counts"]))
	}
	if o := counters["out_of_stock"]; o > 0 {
		inv.Drift = append(inv.Drift, fmt.Sprintf("%d checkouts found a product sold out and ordered nothing", o))
	}
	return inv
}

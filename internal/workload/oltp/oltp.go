// Package oltp is sysbench 1.0.20's OLTP tests: the same sbtest tables, the
// same statements per event, the same option defaults, so that one server
// gives the same figures under sysbench and under shootout.
package oltp

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/units"
	"shootout/internal/workload"
)

// Options are sysbench's oltp_common options, with its defaults.
type Options struct {
	Tables          int
	PointSelects    int
	SimpleRanges    int
	SumRanges       int
	OrderRanges     int
	DistinctRanges  int
	IndexUpdates    int
	NonIndexUpdates int
	DeleteInserts   int
	RangeSize       int
	SkipTrx         bool
	RangeSelects    bool
	AutoInc         bool
	CreateSecondary bool
	// Secondary puts a plain index on id in place of the primary key.
	Secondary bool
	// CreateTableOptions is appended to CREATE TABLE (sysbench's
	// mysql_table_options, e.g. ROW_FORMAT=COMPRESSED).
	CreateTableOptions string
	// Reconnect, when not 0, makes each client reconnect after that many
	// events (sysbench's --reconnect).
	Reconnect int
	// Errors is which failed events run again: "sysbench" (its default
	// --mysql-ignore-errors=1213,1020,1205, and on PostgreSQL deadlocks,
	// serialization failures and duplicate keys, restarted as often as
	// they fail; any other error ends the run) or "retry" (shootout's:
	// every retryable class, rolled back, at most max_retries times).
	Errors       string
	RandType     string
	LoadParallel int
	// Client is what runs the clients' queries: "go" (the Go driver, on
	// every server) or "libmariadb" (oltp_point_select on MariaDB: each
	// client a loop in C on a thread of its own, as sysbench's; package
	// cloop says why).
	Client string
}

// test is one sysbench script: which statement groups an event runs.
type test struct {
	name, description string
	reads, writes     bool // which groups of oltp_read_write the event runs
	trx               bool // wrapped in BEGIN/COMMIT
	single            string
}

var tests = []test{
	{name: "oltp_read_write", description: "sysbench oltp_read_write: 10 point selects, 4 range selects, 2 updates, delete+insert in one transaction", reads: true, writes: true, trx: true},
	{name: "oltp_read_only", description: "sysbench oltp_read_only: 10 point selects and 4 range selects in one transaction", reads: true, trx: true},
	{name: "oltp_write_only", description: "sysbench oltp_write_only: index update, non-index update, delete+insert in one transaction", writes: true, trx: true},
	{name: "oltp_point_select", description: "sysbench oltp_point_select: one primary-key SELECT per event", single: "point_select"},
	{name: "oltp_insert", description: "sysbench oltp_insert: one INSERT per event", single: "insert"},
	{name: "oltp_update_index", description: "sysbench oltp_update_index: one UPDATE of the indexed column k per event", single: "update_index"},
	{name: "oltp_update_non_index", description: "sysbench oltp_update_non_index: one UPDATE of the non-indexed column c per event", single: "update_non_index"},
	{name: "oltp_delete", description: "sysbench oltp_delete: one DELETE by primary key per event", single: "delete"},
}

func init() {
	for _, t := range tests {
		workload.Register(workload.Spec{Name: t.name, Description: t.description, Params: params,
			New: func(v workload.Values) (workload.Workload, error) {
				o, err := options(v)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", t.name, err)
				}
				if t.single == "point_select" {
					o.PointSelects = 1 // sysbench's oltp_point_select runs one per event
				}
				if o.Client == clientC && t.single != "point_select" {
					return nil, fmt.Errorf("%s: parameter client=%s runs oltp_point_select only (its loop in C reads by primary key); use client=go", t.name, clientC)
				}
				if o.Client == clientC && o.Reconnect > 0 {
					return nil, fmt.Errorf("%s: parameter reconnect=%d is the Go client's; client=%s keeps its session (use client=go)", t.name, o.Reconnect, clientC)
				}
				return &Workload{test: t, opt: o}, nil
			}})
	}
}

// params are sysbench's oltp_common options, with its defaults.
var params = []workload.Param{
	{Name: "tables", Kind: workload.Int, Default: "1", Min: 1, Help: "sbtest tables"},
	{Name: "point_selects", Kind: workload.Int, Default: "10", Help: "point selects per event"},
	{Name: "simple_ranges", Kind: workload.Int, Default: "1", Help: "simple range selects per event"},
	{Name: "sum_ranges", Kind: workload.Int, Default: "1", Help: "SUM() range selects per event"},
	{Name: "order_ranges", Kind: workload.Int, Default: "1", Help: "ORDER BY range selects per event"},
	{Name: "distinct_ranges", Kind: workload.Int, Default: "1", Help: "DISTINCT range selects per event"},
	{Name: "index_updates", Kind: workload.Int, Default: "1", Help: "UPDATEs of the indexed column per event"},
	{Name: "non_index_updates", Kind: workload.Int, Default: "1", Help: "UPDATEs of a non-indexed column per event"},
	{Name: "delete_inserts", Kind: workload.Int, Default: "1", Help: "DELETE+INSERT pairs per event"},
	{Name: "range_size", Kind: workload.Int, Default: "100", Min: 1, Help: "rows a range select reads"},
	{Name: "load_parallel", Kind: workload.Int, Default: "4", Help: "goroutines generating rows while loading"},
	{Name: "reconnect", Kind: workload.Int, Default: "0", Help: "reconnect after this many events (sysbench --reconnect; 0 never)"},
	{Name: "skip_trx", Kind: workload.Bool, Default: "false", Help: "no BEGIN/COMMIT around an event"},
	{Name: "range_selects", Kind: workload.Bool, Default: "true", Help: "run the range selects"},
	{Name: "auto_inc", Kind: workload.Bool, Default: "true", Help: "ids from the server's auto-increment"},
	{Name: "create_secondary", Kind: workload.Bool, Default: "true", Help: "create the secondary index on k"},
	{Name: "secondary", Kind: workload.Bool, Default: "false", Help: "a plain index on id in place of the primary key"},
	{Name: "rand_type", Kind: workload.Text, Default: "special", Valid: []string{"uniform", "special"}, Help: "sysbench's id distribution"},
	{Name: "errors", Kind: workload.Text, Default: "sysbench", Valid: []string{"sysbench", "retry"},
		Help: "sysbench (its ignored errors, restarted as often as they fail) or retry (every retryable error, rolled back, at most max_retries times)"},
	{Name: "create_table_options", Kind: workload.Text, Help: "appended to CREATE TABLE (sysbench's mysql_table_options), no ';'"},
	{Name: "client", Kind: workload.Text, Default: "go", Valid: []string{"go", clientC},
		Help: "go (the Go driver) or " + clientC + " (oltp_point_select on MariaDB: a loop in C per client, as sysbench's)"},
}

// options are the checked parameters as sysbench's options.
func options(v workload.Values) (Options, error) {
	o := Options{Tables: v.Int("tables"), PointSelects: v.Int("point_selects"), SimpleRanges: v.Int("simple_ranges"),
		SumRanges: v.Int("sum_ranges"), OrderRanges: v.Int("order_ranges"), DistinctRanges: v.Int("distinct_ranges"),
		IndexUpdates: v.Int("index_updates"), NonIndexUpdates: v.Int("non_index_updates"), DeleteInserts: v.Int("delete_inserts"),
		RangeSize: v.Int("range_size"), LoadParallel: v.Int("load_parallel"), Reconnect: v.Int("reconnect"),
		SkipTrx: v.Bool("skip_trx"), RangeSelects: v.Bool("range_selects"), AutoInc: v.Bool("auto_inc"),
		CreateSecondary: v.Bool("create_secondary"), Secondary: v.Bool("secondary"),
		RandType: v.Text("rand_type"), Errors: v.Text("errors"), CreateTableOptions: v.Text("create_table_options"), Client: v.Text("client")}
	if strings.ContainsAny(o.CreateTableOptions, ";") {
		return o, fmt.Errorf("parameter create_table_options=%q: table options only, no ';'", o.CreateTableOptions)
	}
	return o, nil
}

// Workload is one configured sysbench test.
type Workload struct {
	test test
	opt  Options
	// insertSeq numbers oltp_insert's client-chosen ids across all the
	// clients of a run, so no two draw the same one (sysbench.rand.unique)
	insertSeq atomic.Uint32

	mu sync.Mutex
	// doubts are the writes of the run whose answer was lost with the
	// connection (a KILL or a crash between the server's commit and the
	// answer): each took effect whole or not at all, and Check accepts
	// either
	doubts []counters
}

func (w *Workload) addDoubt(c counters) {
	w.mu.Lock()
	w.doubts = append(w.doubts, c)
	w.mu.Unlock()
}

// InAgents: oltp_insert without auto_inc draws its ids from one counter
// of the run's (uniqueID), which clients in other processes would draw
// again; every other test's worker is its connection and its random ids.
func (w *Workload) InAgents(int) error {
	if w.test.single == "insert" && !w.opt.AutoInc {
		return errors.New("parameter auto_inc=false: oltp_insert's ids come from one counter all clients of the run share; use auto_inc=true")
	}
	return nil
}

func (w *Workload) Name() string        { return w.test.name }
func (w *Workload) Description() string { return w.test.description }
func (w *Workload) Ops() []string       { return []string{"event"} }

// DefaultDataset is sysbench's usual table size for a quick run.
func (w *Workload) DefaultDataset() string { return "1000000" }

// Dataset is the row count of each sbtest table (sysbench's --table-size).
func (w *Workload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	rows, err := ParseSize(spec)
	if err != nil {
		return workload.Dataset{}, err
	}
	return workload.Dataset{Name: spec, Rows: rows, Seed: seed}, nil
}

// ParseSize reads a row count such as 1000000, 1M or 10k.
func ParseSize(spec string) (int64, error) {
	n, err := units.ParseCount(spec)
	if err != nil {
		return 0, fmt.Errorf("dataset %q: want a table size in rows such as 10000, 100k or 1M", spec)
	}
	return n, nil
}

func table(i int) string { return "sbtest" + strconv.Itoa(i) }

// Schema is sysbench's CREATE TABLE; the k index comes after the load.
func (w *Workload) Schema(d dialect.Dialect, ds workload.Dataset) []string {
	var out []string
	idType := "INTEGER NOT NULL"
	if w.opt.AutoInc {
		idType = d.AutoIncrementInt()
	}
	key := "PRIMARY KEY (id)"
	if w.opt.Secondary {
		// sysbench's secondary: a plain index on id, no primary key. Only
		// MySQL declares one inline; the others get it after the load.
		key = ""
		if d.Flavor == dialect.MySQL {
			key = "KEY xid (id)"
		}
		if idType == "INTEGER" {
			idType = "INTEGER NOT NULL" // not SQLite's rowid alias without a key
		}
	}
	opts := d.TableOptions()
	if w.opt.CreateTableOptions != "" {
		opts += " " + w.opt.CreateTableOptions
	}
	for i := 1; i <= w.opt.Tables; i++ {
		cols := []string{"id " + idType, "k INTEGER DEFAULT '0' NOT NULL", "c CHAR(120) DEFAULT '' NOT NULL", "pad CHAR(60) DEFAULT '' NOT NULL"}
		if key != "" {
			cols = append(cols, key)
		}
		out = append(out, "DROP TABLE IF EXISTS "+table(i))
		out = append(out, fmt.Sprintf("CREATE TABLE %s(\n  %s\n)%s", table(i), strings.Join(cols, ",\n  "), opts))
	}
	return out
}

// PostLoad builds the secondary index and, on PostgreSQL, moves the id
// sequence past the loaded ids so oltp_insert's auto ids do not collide.
func (w *Workload) PostLoad(d dialect.Dialect, ds workload.Dataset) []string {
	var out []string
	for i := 1; i <= w.opt.Tables; i++ {
		if w.opt.Secondary && d.Flavor != dialect.MySQL {
			out = append(out, fmt.Sprintf("CREATE INDEX xid_%d ON %s(id)", i, table(i)))
		}
		if w.opt.CreateSecondary {
			out = append(out, fmt.Sprintf("CREATE INDEX k_%d ON %s(k)", i, table(i)))
		}
		if d.Flavor == dialect.Postgres && w.opt.AutoInc {
			out = append(out, fmt.Sprintf("SELECT setval('%s_id_seq', (SELECT COALESCE(MAX(id), 1) FROM %s))", table(i), table(i)))
		}
	}
	return out
}

// batchRows is the rows per bulk statement: large enough that the commit
// per statement is not what a load waits on.
const batchRows = 50000

// Load inserts ids 1..Rows into every table, k (default distribution) and
// strings drawn as sysbench prepare draws them, from a generator seeded per
// batch.
func (w *Workload) Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	start := time.Now()
	perTable := int((ds.Rows + batchRows - 1) / batchRows)
	cols := []string{"id", "k", "c", "pad"}
	makeBatch := func(b int) workload.Batch {
		t := b/perTable + 1
		first := int64(b%perTable)*batchRows + 1
		last := first + batchRows - 1
		if last > ds.Rows {
			last = ds.Rows
		}
		rng := rand.New(rand.NewPCG(uint64(ds.Seed), uint64(b)))
		kGen := newIDGen(w.opt.RandType, ds.Rows, rng) // prepare draws k with sb_rand, the default distribution
		rows := make([][]any, 0, last-first+1)
		buf := make([]byte, 0, int(last-first+1)*(cLen+padLen))
		for id := first; id <= last; id++ {
			k := kGen.next()
			off := len(buf)
			buf = appendDigits(buf, rng, cTemplate)
			c := buf[off:]
			off = len(buf)
			buf = appendDigits(buf, rng, padTemplate)
			pad := buf[off:]
			rows = append(rows, []any{id, k, string(c), string(pad)})
		}
		return workload.Batch{Table: table(t), Cols: cols, Rows: rows}
	}
	parallel := w.opt.LoadParallel
	if d.Flavor == dialect.SQLite {
		parallel = 1 // one writer at a time; more only wait on the lock
	}
	insert := func(ctx context.Context, c *sql.Conn, b workload.Batch) error {
		return d.BulkInsert(ctx, c, b.Table, b.Cols, b.Rows)
	}
	tables, secs, err := workload.LoadOrdered(ctx, db, d, insert, perTable*w.opt.Tables, parallel, makeBatch, progress)
	var rows int64
	for _, n := range tables {
		rows += n
	}
	return workload.LoadStats{Rows: rows, Seconds: time.Since(start).Seconds(), Tables: tables, TableSeconds: secs}, err
}

// Loaded is true when every table exists with exactly ds.Rows rows.
func (w *Workload) Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (bool, error) {
	for i := 1; i <= w.opt.Tables; i++ {
		var n int64
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table(i)).Scan(&n)
		if err != nil {
			return false, nil // no such table: load it
		}
		if n != ds.Rows {
			return false, nil
		}
	}
	return true, nil
}

// Before records row count and SUM(k) of every table.
func (w *Workload) Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (workload.State, error) {
	st := workload.State{}
	for i := 1; i <= w.opt.Tables; i++ {
		var n, sum sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(k) FROM "+table(i)).Scan(&n, &sum); err != nil {
			return nil, fmt.Errorf("read %s before the run: %w", table(i), err)
		}
		st["rows"] += n.Int64
		st["sum_k"] += sum.Int64
	}
	w.mu.Lock()
	w.doubts = nil
	w.mu.Unlock()
	return st, nil
}

// Check verifies what must hold after the run: the row count moved exactly
// by the committed inserts and deletes, SUM(k) moved exactly by committed
// k updates where the test makes that knowable, and the k index agrees
// with the table.
func (w *Workload) Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	inv := workload.Invariants{OK: true}
	failf := func(format string, args ...any) {
		inv.OK = false
		inv.Failures = append(inv.Failures, fmt.Sprintf(format, args...))
	}
	var rows, sum int64
	for i := 1; i <= w.opt.Tables; i++ {
		var n, s sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(k) FROM "+table(i)+d.ForceIndex("PRIMARY")).Scan(&n, &s); err != nil {
			if d.Flavor == dialect.SQLite { // the rowid table has no index named PRIMARY
				err = db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(k) FROM "+table(i)).Scan(&n, &s)
			}
			if err != nil {
				failf("read %s: %v", table(i), err)
				continue
			}
		}
		rows += n.Int64
		sum += s.Int64
		if w.opt.CreateSecondary && d.ForceIndex("x") != "" && d.Engine != "memory" {
			var ni, si sql.NullInt64
			q := fmt.Sprintf("SELECT COUNT(*), SUM(k) FROM %s%s WHERE k IS NOT NULL", table(i), d.ForceIndex(fmt.Sprintf("k_%d", i)))
			if err := db.QueryRowContext(ctx, q).Scan(&ni, &si); err != nil {
				failf("read %s through index k_%d: %v", table(i), i, err)
			} else if ni != n || si != s {
				failf("%s: index k_%d holds %d rows (sum k %d), the table %d (sum k %d)", table(i), i, ni.Int64, si.Int64, n.Int64, s.Int64)
			}
			inv.Checked = append(inv.Checked, fmt.Sprintf("index k_%d agrees with %s", i, table(i)))
		}
	}
	wantRows := before["rows"] + counters["rows_inserted"] - counters["rows_deleted"]
	wantSum := before["sum_k"] + counters["k_increments"] + counters["k_inserted"]
	knowable := w.sumKnowable()
	if !knowable {
		sum, wantSum = 0, 0
	}
	// writes whose answer was lost took effect or did not: the table may
	// differ from the clients' count by the effect of any of them
	w.mu.Lock()
	doubts := w.doubts
	w.mu.Unlock()
	var doubtRows, doubtSum int64
	if len(doubts) > 0 {
		took, ok := explainedBy(doubts, rows-wantRows, sum-wantSum, knowable)
		switch {
		case !ok:
			inv.Checked = append(inv.Checked, fmt.Sprintf("%d writes went unanswered when their connection was lost; no set of them taking effect explains the table", len(doubts)))
		case took < 0:
			doubtRows, doubtSum = rows-wantRows, sum-wantSum
			inv.Checked = append(inv.Checked, fmt.Sprintf("%d writes went unanswered when their connection was lost; the table differs from the clients' count by no more than they could have done (too many to tell which took effect)", len(doubts)))
		default:
			doubtRows, doubtSum = rows-wantRows, sum-wantSum
			inv.Checked = append(inv.Checked, fmt.Sprintf("%d writes went unanswered when their connection was lost: %d of them taking effect explain the table (rows %+d, sum(k) %+d)", len(doubts), took, doubtRows, doubtSum))
		}
	}
	inv.Checked = append(inv.Checked, fmt.Sprintf("rows = %d before + %d inserted - %d deleted = %d", before["rows"], counters["rows_inserted"], counters["rows_deleted"], wantRows))
	if rows != wantRows+doubtRows {
		failf("row count %d, want %d (%d before, %d committed inserts, %d committed deletes)", rows, wantRows, before["rows"], counters["rows_inserted"], counters["rows_deleted"])
	}
	if knowable {
		inv.Checked = append(inv.Checked, fmt.Sprintf("sum(k) = %d before + %d increments + %d inserted = %d", before["sum_k"], counters["k_increments"], counters["k_inserted"], wantSum))
		if sum != wantSum+doubtSum {
			failf("sum of k %d, want %d (%d before, %d committed increments, %d in inserted rows)", sum, wantSum, before["sum_k"], counters["k_increments"], counters["k_inserted"])
		}
	}
	return inv
}

// maxDoubtsToSettle bounds the search for which lost writes took effect
// (the subsets of n doubts): past it only the range is checked.
const maxDoubtsToSettle = 16

// explainedBy says whether some of the doubts taking effect, and the rest
// not, moves the row count by dRows and (when knowable) SUM(k) by dSum,
// and how few of them do; took is -1 when there were too many doubts to
// tell and the difference lies within what they could have done.
func explainedBy(doubts []counters, dRows, dSum int64, knowable bool) (took int, ok bool) {
	type effect struct{ rows, sum int64 }
	of := func(c counters) effect {
		e := effect{rows: c.inserted - c.deleted}
		if knowable {
			e.sum = c.kIncrements + c.kInserted
		}
		return e
	}
	want := effect{dRows, dSum}
	if len(doubts) > maxDoubtsToSettle {
		var lo, hi effect
		for _, c := range doubts {
			e := of(c)
			lo.rows, hi.rows = lo.rows+min(e.rows, 0), hi.rows+max(e.rows, 0)
			lo.sum, hi.sum = lo.sum+min(e.sum, 0), hi.sum+max(e.sum, 0)
		}
		return -1, want.rows >= lo.rows && want.rows <= hi.rows && want.sum >= lo.sum && want.sum <= hi.sum
	}
	// the fewest doubts that reach each effect
	fewest := map[effect]int{{}: 0}
	for _, c := range doubts {
		e := of(c)
		next := maps.Clone(fewest)
		for at, n := range fewest {
			to := effect{at.rows + e.rows, at.sum + e.sum}
			if m, seen := next[to]; !seen || n+1 < m {
				next[to] = n + 1
			}
		}
		fewest = next
	}
	took, ok = fewest[want]
	return took, ok
}

// sumKnowable: delete+insert and delete replace rows whose k the client
// never reads, so only tests without them predict SUM(k).
func (w *Workload) sumKnowable() bool {
	if w.test.single != "" {
		return w.test.single != "delete"
	}
	return !w.test.writes || w.opt.DeleteInserts == 0
}

const (
	cTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	padTemplate = "###########-###########-###########-###########-###########"
	cLen        = len(cTemplate)
	padLen      = len(padTemplate)
)

// appendDigits fills a sysbench string template: '#' is a random digit.
// Nineteen digits come out of each 64-bit draw, which keeps row generation
// from competing with the server for CPU while loading.
func appendDigits(buf []byte, rng *rand.Rand, tmpl string) []byte {
	var r uint64
	left := 0
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '#' {
			buf = append(buf, tmpl[i])
			continue
		}
		if left == 0 {
			r, left = rng.Uint64(), 19
		}
		buf = append(buf, byte('0'+r%10))
		r /= 10
		left--
	}
	return buf
}

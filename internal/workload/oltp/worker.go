package oltp

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math/rand/v2"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// statements of one table, as sysbench's oltp_common.lua declares them,
// prepared on the connection's driver (see dialect.RawStmt for why).
type statements struct {
	pointSelect, simpleRange, sumRange, orderRange, distinctRange *dialect.RawStmt
	indexUpdate, nonIndexUpdate, del, insert                      *dialect.RawStmt
}

type worker struct {
	w     *Workload
	d     dialect.Dialect
	conn  *sql.Conn
	dc    any // the driver connection, valid during Do only
	rows  int64
	rng   *rand.Rand
	ids   idGen
	stmts []statements // index 0 is sbtest1
	begin string
	buf   []byte
	inTrx bool
	// events counts this connection's events, for reconnect; discard
	// makes Close drop the session instead of pooling it, so the next
	// worker gets a new one
	events  int
	discard bool

	// committed counters, and the pending ones of the open transaction
	committed, pending counters
	out                workload.Outcome
}

type counters struct{ inserted, deleted, kIncrements, kInserted, logicalBytes int64 }

func (c *counters) add(o counters) {
	c.inserted += o.inserted
	c.deleted += o.deleted
	c.kIncrements += o.kIncrements
	c.kInserted += o.kInserted
	c.logicalBytes += o.logicalBytes
}

// rowImage is the logical size of one sbtest row: the declared widths of
// id INTEGER (4), k INTEGER (4), c CHAR(120) and pad CHAR(60). Every row an
// INSERT, UPDATE or DELETE touches counts whole, whatever each engine
// stores, so write amplification divides by the same figure on every
// target.
const rowImage = 4 + 4 + 120 + 60

// NewWorker prepares the statements the test uses on conn, per table, as
// sysbench's thread_init does.
func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	if w.OwnClients() {
		conn.Close()
		return nil, fmt.Errorf("parameter client=%s connects by itself: its clients come from NewOwnWorker", clientC)
	}
	seed := uint64(time.Now().UnixNano()) ^ uint64(client)<<32
	rng := rand.New(rand.NewPCG(seed, uint64(ds.Seed)))
	wk := &worker{w: w, d: d, conn: conn, rows: ds.Rows, rng: rng, ids: newIDGen(w.opt.RandType, ds.Rows, rng),
		begin: d.Begin(w.test.writes || w.test.single != "")}
	prep := func(dc any, q string, need bool) (*dialect.RawStmt, error) {
		if !need {
			return nil, nil
		}
		return dialect.PrepareRaw(ctx, dc, d.Bind(q))
	}
	t := w.test
	reads := t.reads || t.single == "point_select"
	err := conn.Raw(func(dc any) error {
		for i := 1; i <= w.opt.Tables; i++ {
			tb := table(i)
			var s statements
			var err error
			for _, p := range []struct {
				dst  **dialect.RawStmt
				q    string
				need bool
			}{
				{&s.pointSelect, "SELECT c FROM " + tb + " WHERE id=?", reads && w.opt.PointSelects > 0},
				{&s.simpleRange, "SELECT c FROM " + tb + " WHERE id BETWEEN ? AND ?", t.reads && w.opt.RangeSelects && w.opt.SimpleRanges > 0},
				{&s.sumRange, "SELECT SUM(k) FROM " + tb + " WHERE id BETWEEN ? AND ?", t.reads && w.opt.RangeSelects && w.opt.SumRanges > 0},
				{&s.orderRange, "SELECT c FROM " + tb + " WHERE id BETWEEN ? AND ? ORDER BY c", t.reads && w.opt.RangeSelects && w.opt.OrderRanges > 0},
				{&s.distinctRange, "SELECT DISTINCT c FROM " + tb + " WHERE id BETWEEN ? AND ? ORDER BY c", t.reads && w.opt.RangeSelects && w.opt.DistinctRanges > 0},
				{&s.indexUpdate, "UPDATE " + tb + " SET k=k+1 WHERE id=?", (t.writes && w.opt.IndexUpdates > 0) || t.single == "update_index"},
				{&s.nonIndexUpdate, "UPDATE " + tb + " SET c=? WHERE id=?", (t.writes && w.opt.NonIndexUpdates > 0) || t.single == "update_non_index"},
				{&s.del, "DELETE FROM " + tb + " WHERE id=?", (t.writes && w.opt.DeleteInserts > 0) || t.single == "delete"},
				{&s.insert, "INSERT INTO " + tb + " (id, k, c, pad) VALUES (?, ?, ?, ?)", t.writes && w.opt.DeleteInserts > 0},
			} {
				if *p.dst, err = prep(dc, p.q, p.need); err != nil {
					return fmt.Errorf("prepare %q: %w", p.q, err)
				}
			}
			wk.stmts = append(wk.stmts, s)
		}
		return nil
	})
	if err != nil {
		wk.Close()
		return nil, err
	}
	return wk, nil
}

func (wk *worker) table() int {
	if len(wk.stmts) == 1 {
		return 0
	}
	return wk.rng.IntN(len(wk.stmts))
}

func (wk *worker) Do(ctx context.Context) (workload.Outcome, error) {
	wk.out = workload.Outcome{}
	wk.pending = counters{}
	err := wk.conn.Raw(func(dc any) error {
		wk.dc = dc
		defer func() { wk.dc = nil }()
		return wk.event(ctx)
	})
	if err != nil {
		if wk.autocommit() {
			// each statement committed on its own: those that were
			// answered before the error stay, whatever follows
			wk.committed.add(wk.pending)
		}
		// the statements answered before the error count in qps, as
		// sysbench counts them, though the event runs again
		return wk.out, err
	}
	wk.committed.add(wk.pending)
	wk.events++
	return wk.out, nil
}

// WantsReconnect is sysbench's --reconnect: a new session every N events.
func (wk *worker) WantsReconnect() bool {
	if n := wk.w.opt.Reconnect; n > 0 && wk.events >= n {
		wk.discard = true
		return true
	}
	return false
}

// sysbenchIgnored are the errors sysbench 1.0 restarts an event on by
// default: --mysql-ignore-errors=1213,1020,1205, and what its PostgreSQL
// driver treats as ignorable (deadlock, serialization failure, unique
// violation). SQLite, which sysbench does not drive, waits on a busy lock.
var sysbenchIgnored = map[string]bool{
	"mysql:1213": true, "mysql:1020": true, "mysql:1205": true,
	"postgres:40P01": true, "postgres:40001": true, "postgres:23505": true,
	"sqlite:5": true, "sqlite:6": true,
}

// Restart is the workload's error policy (param errors): sysbench's by
// default, as often as the error recurs; or shootout's retry of every
// retryable class, at most max_retries times.
func (wk *worker) Restart(err error) (again, unlimited bool) {
	if wk.w.opt.Errors == "retry" {
		return dialect.Classify(err).Retryable(), false
	}
	return sysbenchIgnored[dialect.ErrorCode(err)], true
}

// RetryNote: sysbench's rule (param errors, the default) restarts its
// ignored errors as often as they recur, past max_retries.
func (w *Workload) RetryNote() string {
	if w.opt.Errors == "retry" {
		return ""
	}
	return "the workload's error rule retries without limit (oltp's default, as sysbench's)"
}

func (wk *worker) event(ctx context.Context) error {
	switch wk.w.test.single {
	case "point_select":
		return wk.pointSelects(ctx)
	case "insert":
		return wk.insertEvent(ctx)
	case "update_index":
		return wk.indexUpdates(ctx, 1)
	case "update_non_index":
		return wk.nonIndexUpdates(ctx, 1)
	case "delete":
		return wk.deleteEvent(ctx)
	default:
		return wk.transaction(ctx)
	}
}

// autocommit: the event's statements are not wrapped in a transaction
// (the single-statement tests, and skip_trx), so each commits by itself.
func (wk *worker) autocommit() bool {
	return wk.w.test.single != "" || !wk.w.test.trx || wk.w.opt.SkipTrx
}

func (wk *worker) transaction(ctx context.Context) error {
	trx := !wk.autocommit()
	o := wk.w.opt
	if trx {
		if err := dialect.ExecRaw(ctx, wk.dc, wk.begin); err != nil {
			return err
		}
		wk.inTrx = true
		wk.out.Other++
	}
	if wk.w.test.reads {
		if err := wk.pointSelects(ctx); err != nil {
			return err
		}
		if o.RangeSelects {
			for _, g := range []struct {
				n    int
				stmt func(s *statements) *dialect.RawStmt
			}{
				{o.SimpleRanges, func(s *statements) *dialect.RawStmt { return s.simpleRange }},
				{o.SumRanges, func(s *statements) *dialect.RawStmt { return s.sumRange }},
				{o.OrderRanges, func(s *statements) *dialect.RawStmt { return s.orderRange }},
				{o.DistinctRanges, func(s *statements) *dialect.RawStmt { return s.distinctRange }},
			} {
				if err := wk.ranges(ctx, g.n, g.stmt); err != nil {
					return err
				}
			}
		}
	}
	if wk.w.test.writes {
		if err := wk.indexUpdates(ctx, o.IndexUpdates); err != nil {
			return err
		}
		if err := wk.nonIndexUpdates(ctx, o.NonIndexUpdates); err != nil {
			return err
		}
		if err := wk.deleteInserts(ctx, o.DeleteInserts); err != nil {
			return err
		}
	}
	if trx {
		if err := dialect.ExecRaw(ctx, wk.dc, "COMMIT"); err != nil {
			if dialect.Classify(err) == dialect.ClassConnectionLost {
				// the server may have committed before the session
				// went: Check accepts either
				wk.w.addDoubt(wk.pending)
			}
			return err
		}
		wk.inTrx = false
		wk.out.Other++
	}
	return nil
}

// query runs a read and consumes every row, as a client must.
func (wk *worker) query(ctx context.Context, st *dialect.RawStmt, args ...any) error {
	if _, err := st.Query(ctx, args...); err != nil {
		return err
	}
	wk.out.Reads++
	return nil
}

// exec runs a write; wouldBe is what it does to the counters if it takes
// effect, which is in doubt when its answer is lost outside a transaction
// (inside one, the server rolls the transaction back with the session).
func (wk *worker) exec(ctx context.Context, st *dialect.RawStmt, wouldBe counters, args ...any) (int64, error) {
	n, err := st.Exec(ctx, args...)
	if err != nil {
		wk.doubtIfLost(err, wouldBe)
		return 0, err
	}
	wk.out.Writes++
	return n, nil
}

func (wk *worker) doubtIfLost(err error, wouldBe counters) {
	if !wk.inTrx && wouldBe != (counters{}) && dialect.Classify(err) == dialect.ClassConnectionLost {
		wk.w.addDoubt(wouldBe)
	}
}

func (wk *worker) pointSelects(ctx context.Context) error {
	t := wk.table()
	for i := 0; i < wk.w.opt.PointSelects; i++ {
		if err := wk.query(ctx, wk.stmts[t].pointSelect, wk.ids.next()); err != nil {
			return err
		}
	}
	return nil
}

func (wk *worker) ranges(ctx context.Context, n int, pick func(*statements) *dialect.RawStmt) error {
	t := wk.table()
	for i := 0; i < n; i++ {
		lo := wk.ids.next()
		if err := wk.query(ctx, pick(&wk.stmts[t]), lo, lo+int64(wk.w.opt.RangeSize)-1); err != nil {
			return err
		}
	}
	return nil
}

func (wk *worker) indexUpdates(ctx context.Context, n int) error {
	t := wk.table()
	for i := 0; i < n; i++ {
		changed, err := wk.exec(ctx, wk.stmts[t].indexUpdate, counters{kIncrements: 1}, wk.ids.next())
		if err != nil {
			return err
		}
		wk.pending.kIncrements += changed
		wk.pending.logicalBytes += changed * rowImage
	}
	return nil
}

func (wk *worker) nonIndexUpdates(ctx context.Context, n int) error {
	t := wk.table()
	for i := 0; i < n; i++ {
		changed, err := wk.exec(ctx, wk.stmts[t].nonIndexUpdate, counters{}, wk.cValue(), wk.ids.next())
		if err != nil {
			return err
		}
		wk.pending.logicalBytes += changed * rowImage
	}
	return nil
}

// deleteInserts deletes a row and inserts it back with a new k, c and pad:
// the row count stays the same, as in sysbench.
func (wk *worker) deleteInserts(ctx context.Context, n int) error {
	t := wk.table()
	for i := 0; i < n; i++ {
		id := wk.ids.next()
		k := wk.ids.next()
		deleted, err := wk.exec(ctx, wk.stmts[t].del, counters{deleted: 1}, id)
		if err != nil {
			return err
		}
		wk.pending.deleted += deleted
		inserted, err := wk.exec(ctx, wk.stmts[t].insert, counters{inserted: 1, kInserted: k}, id, k, wk.cValue(), wk.padValue())
		if err != nil {
			return err
		}
		wk.pending.inserted += inserted
		wk.pending.kInserted += inserted * k
		wk.pending.logicalBytes += (deleted + inserted) * rowImage
	}
	return nil
}

func (wk *worker) deleteEvent(ctx context.Context) error {
	n, err := wk.exec(ctx, wk.stmts[wk.table()].del, counters{deleted: 1}, wk.ids.next())
	if err != nil {
		return err
	}
	wk.pending.deleted += n
	wk.pending.logicalBytes += n * rowImage
	return nil
}

// insertEvent is oltp_insert: a plain (not prepared) INSERT. With auto_inc
// sysbench sends id 0 to MariaDB (which then assigns one) and leaves id out
// elsewhere; without it the id is drawn at random.
func (wk *worker) insertEvent(ctx context.Context) error {
	t := wk.table() + 1
	k := wk.ids.next()
	var q string
	switch {
	case wk.w.opt.AutoInc && wk.d.Flavor == dialect.MySQL:
		q = fmt.Sprintf("INSERT INTO %s (id, k, c, pad) VALUES (0, %d, '%s', '%s')", table(t), k, wk.cValue(), wk.padValue())
	case wk.w.opt.AutoInc:
		q = fmt.Sprintf("INSERT INTO %s (k, c, pad) VALUES (%d, '%s', '%s')", table(t), k, wk.cValue(), wk.padValue())
	default:
		q = fmt.Sprintf("INSERT INTO %s (id, k, c, pad) VALUES (%d, %d, '%s', '%s')", table(t), wk.w.uniqueID(wk.rows), k, wk.cValue(), wk.padValue())
	}
	if err := dialect.ExecRaw(ctx, wk.dc, q); err != nil {
		wk.doubtIfLost(err, counters{inserted: 1, kInserted: k})
		return err
	}
	wk.out.Writes++
	wk.pending.inserted++
	wk.pending.kInserted += k
	wk.pending.logicalBytes += rowImage
	return nil
}

func (wk *worker) cValue() string {
	wk.buf = appendDigits(wk.buf[:0], wk.rng, cTemplate)
	return string(wk.buf)
}

func (wk *worker) padValue() string {
	wk.buf = appendDigits(wk.buf[:0], wk.rng, padTemplate)
	return string(wk.buf)
}

func (wk *worker) Abort(ctx context.Context) {
	if wk.inTrx {
		// Best effort: a failed ROLLBACK means the connection is gone, and
		// the driver reconnects on the next error.
		_, _ = wk.conn.ExecContext(ctx, "ROLLBACK")
		wk.inTrx = false
	}
}

func (wk *worker) Counters() map[string]int64 {
	c := wk.committed
	return map[string]int64{"rows_inserted": c.inserted, "rows_deleted": c.deleted, "k_increments": c.kIncrements, "k_inserted": c.kInserted,
		workload.LogicalBytes: c.logicalBytes}
}

func (wk *worker) Close() error {
	// closing the statements needs the driver connection; on a broken one
	// the server drops them with the session anyway
	_ = wk.conn.Raw(func(any) error {
		for _, s := range wk.stmts {
			for _, st := range []*dialect.RawStmt{s.pointSelect, s.simpleRange, s.sumRange, s.orderRange, s.distinctRange, s.indexUpdate, s.nonIndexUpdate, s.del, s.insert} {
				if st != nil {
					st.Close()
				}
			}
		}
		return nil
	})
	if wk.discard {
		// a pooled session would come back to the next worker: drop it
		_ = wk.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return wk.conn.Close()
}

// uniqueID is oltp_insert's id without auto_inc: as sysbench's
// sysbench.rand.unique() - 2^31, a 32-bit value no other client of the run
// draws (a bijection of a shared counter), skipping the loaded ids 1..rows
// so no insert collides with the dataset.
func (w *Workload) uniqueID(rows int64) int64 {
	for {
		x := w.insertSeq.Add(1)
		x *= 0x9E3779B1 // odd multipliers and xor-shifts are bijections of uint32
		x ^= x >> 16
		x *= 0x85EBCA6B
		x ^= x >> 13
		if id := int64(x) - 1<<31; id < 1 || id > rows {
			return id
		}
	}
}

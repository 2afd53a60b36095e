package kv

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/workload"
)

// worker reads its slice of the ids, rounds times, by the workload's path,
// through the driver's own statements inside sql.Conn.Raw, as oltp's
// clients do (dialect.RawStmt says why).
type worker struct {
	w      *Workload
	conn   *sql.Conn
	d      dialect.Dialect
	slice  []int64
	next   int // position in slice × rounds
	total  int
	stmt   *dialect.RawStmt // path prepared: the point select; batch: the full IN list
	query  string
	text   []byte // path text and handler: the statement being written
	dest   []driver.Value
	rows   int64
	opened bool  // HANDLER keyvalue OPEN on this connection
	warmed int64 // rows its connection's own warm-up found
	args   []any
	path   string
	// the batch's ids and which of them came back
	ids []int64
	got []bool
	// the operation's state, for the function conn.Raw runs
	id    int64
	found bool
}

// NewWorker is one client on its own connection. Where that connection
// has a page cache of its own (SQLite), it first reads the client's slice
// as the warm-up did the whole file: otherwise the window's first round
// would fill a hundred cold caches (at 10 M rows SQLite read 25-40 k
// rows/s for 20 s, then 250-450 k). The run connects every client before
// its window starts, so this is neither timed nor counted.
func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	if w.OwnClients() {
		conn.Close()
		return nil, fmt.Errorf("kv client=%s connects by itself: its clients come from NewOwnWorker", clientC)
	}
	slice, total := w.sliceOf(ds, client)
	wk := &worker{w: w, conn: conn, d: d, slice: slice, total: total, path: w.Path(proto.SQL)}
	if d.CachePerConnection() {
		var err error
		if wk.warmed, err = w.warm(ctx, conn, d, slice); err != nil {
			return nil, fmt.Errorf("client %d: %w", client+1, err)
		}
	}
	prepare := func(q string) error {
		wk.query = q
		return conn.Raw(func(dc any) error {
			st, err := dialect.PrepareRaw(ctx, dc, q)
			wk.stmt = st
			return err
		})
	}
	switch wk.path {
	case "prepared":
		if err := prepare(d.Bind("SELECT value1, value2 FROM keyvalue WHERE id = ?")); err != nil {
			return nil, err
		}
	case "text":
		// the id written into the statement: the server parses each one
		wk.query = "SELECT value1, value2 FROM keyvalue WHERE id = "
	case "handler":
		if _, err := conn.ExecContext(ctx, "HANDLER keyvalue OPEN"); err != nil {
			return nil, fmt.Errorf("HANDLER keyvalue OPEN: %w", err)
		}
		wk.opened = true
		wk.query = "HANDLER keyvalue READ `PRIMARY` = ("
	case "batch":
		if err := prepare(d.Bind("SELECT id, value1, value2 FROM keyvalue WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?,", w.opt.Batch), ",") + ")")); err != nil {
			return nil, err
		}
		wk.args = make([]any, w.opt.Batch)
		wk.ids = make([]int64, w.opt.Batch)
		wk.got = make([]bool, w.opt.Batch)
	}
	return wk, nil
}

// Do reads the next id (or batch of ids); after the slice's last round it
// reports the client done.
func (wk *worker) Do(ctx context.Context) (workload.Outcome, error) {
	if wk.next >= wk.total || len(wk.slice) == 0 {
		return workload.Outcome{}, workload.ErrClientDone
	}
	if wk.path == "batch" {
		return wk.batch(ctx)
	}
	wk.id = wk.slice[wk.next%len(wk.slice)]
	wk.next++
	wk.found = false
	err := wk.conn.Raw(func(dc any) error {
		var err error
		if wk.stmt != nil {
			_, err = wk.stmt.Each(ctx, wk.row, wk.id)
		} else {
			wk.text = strconv.AppendInt(append(wk.text[:0], wk.query...), wk.id, 10)
			if wk.opened {
				wk.text = append(wk.text, ')')
			}
			_, err = dialect.QueryRaw(ctx, dc, string(wk.text), &wk.dest, wk.row)
		}
		return err
	})
	if err != nil {
		return workload.Outcome{}, err
	}
	if !wk.found {
		wk.w.miss(fmt.Sprintf("id %d: no row", wk.id))
	}
	return workload.Outcome{Reads: 1}, nil
}

// row checks one row of a point read: (value1, value2), or HANDLER's
// every column.
func (wk *worker) row(v []driver.Value) error {
	if wk.opened {
		id, err := asInt(v[0])
		if err != nil {
			return err
		}
		if id != wk.id {
			wk.w.miss(fmt.Sprintf("id %d: not asked for", id))
			return nil
		}
		v = v[1:]
	}
	v1, v2, err := rowValues(v)
	if err != nil {
		return err
	}
	if wk.found {
		wk.w.miss(fmt.Sprintf("id %d: more than one row", wk.id))
		return nil
	}
	wk.found = true
	wk.check(wk.id, v1, v2)
	return nil
}

// batch reads the next batch ids in one IN list; an id the slice holds
// twice in a batch comes back once, and is the read of both places.
func (wk *worker) batch(ctx context.Context) (workload.Outcome, error) {
	n := min(len(wk.args), wk.total-wk.next)
	for i := range wk.args {
		// the last batch of a slice fills the IN list with id 0, which
		// no row has
		wk.ids[i], wk.got[i] = 0, true
		if i < n {
			wk.ids[i], wk.got[i] = wk.slice[(wk.next+i)%len(wk.slice)], false
		}
		wk.args[i] = wk.ids[i]
	}
	wk.next += n
	err := wk.conn.Raw(func(dc any) error {
		_, err := wk.stmt.Each(ctx, func(v []driver.Value) error {
			id, err := asInt(v[0])
			if err != nil {
				return err
			}
			v1, v2, err := rowValues(v[1:])
			if err != nil {
				return err
			}
			wk.w.answer(&wk.rows, wk.ids, wk.got, id, v1, v2)
			return nil
		}, wk.args...)
		return err
	})
	if err != nil {
		return workload.Outcome{}, err
	}
	for i, ok := range wk.got {
		if !ok {
			wk.w.miss(fmt.Sprintf("id %d: no row", wk.ids[i]))
		}
	}
	return workload.Outcome{Reads: int32(n)}, nil
}

// rowValues reads (value1, value2) as the driver gave them: numbers from
// a prepared statement, text from the text protocol.
func rowValues(v []driver.Value) (int64, float64, error) {
	v1, err := asInt(v[0])
	if err != nil {
		return 0, 0, err
	}
	switch x := v[1].(type) {
	case float64:
		return v1, x, nil
	case float32:
		return v1, float64(x), nil
	case []byte:
		v2, err := strconv.ParseFloat(string(x), 64)
		return v1, v2, err
	}
	return 0, 0, fmt.Errorf("value2 came back as %T", v[1])
}

func asInt(v driver.Value) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	case []byte:
		return strconv.ParseInt(string(x), 10, 64)
	}
	return 0, fmt.Errorf("an integer came back as %T", v)
}

func (wk *worker) check(id, v1 int64, v2 float64) bool { return wk.w.checkRow(&wk.rows, id, v1, v2) }

// answer checks a row that came back for id once where a batch may have
// asked it several times (an IN list, a multi-get): the answer is the read
// of every place of ids that asked it and had no answer yet.
func (w *Workload) answer(rows *int64, ids []int64, got []bool, id, v1 int64, v2 float64) {
	first, right := true, false
	for i := range ids {
		if ids[i] != id || got[i] {
			continue
		}
		got[i] = true
		if first {
			right, first = w.checkRow(rows, id, v1, v2), false
		} else if right {
			*rows++
		}
	}
	if first {
		w.miss(fmt.Sprintf("id %d: not asked for", id))
	}
}

// checkRow counts a row read right in rows, and records one read wrong.
func (w *Workload) checkRow(rows *int64, id, v1 int64, v2 float64) bool {
	if v1 != value1(id) || v2 != value2(id) {
		w.miss(fmt.Sprintf("id %d: (%d, %g), loaded (%d, %g)", id, v1, v2, value1(id), value2(id)))
		return false
	}
	*rows++
	return true
}

func (wk *worker) Abort(ctx context.Context) {}

func (wk *worker) Counters() map[string]int64 { return map[string]int64{"rows_read": wk.rows} }

func (wk *worker) Close() error {
	if wk.stmt != nil {
		_ = wk.conn.Raw(func(any) error { return wk.stmt.Close() })
	}
	if wk.opened {
		wk.conn.ExecContext(context.Background(), "HANDLER keyvalue CLOSE")
	}
	return wk.conn.Close()
}

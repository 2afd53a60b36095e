package kv

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/workload"
)

// worker reads its slice of the ids, rounds times, by the workload's path.
type worker struct {
	w      *Workload
	conn   *sql.Conn
	d      dialect.Dialect
	slice  []int64
	next   int // position in slice × rounds
	total  int
	stmt   *sql.Stmt // path prepared: the point select; batch: the full IN list
	query  string
	rows   int64
	opened bool // HANDLER keyvalue OPEN on this connection
	args   []any
	path   string
}

func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	slice, total := w.sliceOf(ds, client)
	wk := &worker{w: w, conn: conn, d: d, slice: slice, total: total, path: w.Path(proto.SQL)}
	switch w.Path(proto.SQL) {
	case "prepared":
		wk.query = d.Bind("SELECT value1, value2 FROM keyvalue WHERE id = ?")
		st, err := conn.PrepareContext(ctx, wk.query)
		if err != nil {
			return nil, err
		}
		wk.stmt = st
	case "text":
		// the id written into the statement: the server parses each one
		wk.query = "SELECT value1, value2 FROM keyvalue WHERE id = %d"
	case "handler":
		if _, err := conn.ExecContext(ctx, "HANDLER keyvalue OPEN"); err != nil {
			return nil, fmt.Errorf("HANDLER keyvalue OPEN: %w", err)
		}
		wk.opened = true
		wk.query = "HANDLER keyvalue READ `PRIMARY` = (%d)"
	case "batch":
		wk.query = d.Bind("SELECT id, value1, value2 FROM keyvalue WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?,", w.opt.Batch), ",") + ")")
		st, err := conn.PrepareContext(ctx, wk.query)
		if err != nil {
			return nil, err
		}
		wk.stmt = st
		wk.args = make([]any, w.opt.Batch)
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
	id := wk.slice[wk.next%len(wk.slice)]
	wk.next++
	var row *sql.Row
	switch wk.path {
	case "prepared":
		row = wk.stmt.QueryRowContext(ctx, id)
	default:
		row = wk.conn.QueryRowContext(ctx, fmt.Sprintf(wk.query, id))
	}
	var v1 int64
	var v2 float64
	var err error
	if wk.opened {
		// HANDLER … READ returns every column
		var got int64
		err = row.Scan(&got, &v1, &v2)
	} else {
		err = row.Scan(&v1, &v2)
	}
	if err != nil {
		if err == sql.ErrNoRows {
			wk.w.miss(fmt.Sprintf("id %d: no row", id))
			return workload.Outcome{Reads: 1}, nil
		}
		return workload.Outcome{}, err
	}
	wk.check(id, v1, v2)
	return workload.Outcome{Reads: 1}, nil
}

// batch reads the next batch ids in one IN list; an id the slice holds
// twice in a batch comes back once.
func (wk *worker) batch(ctx context.Context) (workload.Outcome, error) {
	want := map[int64]int{}
	for i := range wk.args {
		id := wk.slice[(wk.next+i)%len(wk.slice)]
		wk.args[i] = id
		want[id]++
	}
	n := min(len(wk.args), wk.total-wk.next)
	wk.next += len(wk.args)
	rs, err := wk.stmt.QueryContext(ctx, wk.args...)
	if err != nil {
		return workload.Outcome{}, err
	}
	defer rs.Close()
	for rs.Next() {
		var id, v1 int64
		var v2 float64
		if err := rs.Scan(&id, &v1, &v2); err != nil {
			return workload.Outcome{}, err
		}
		if _, asked := want[id]; !asked {
			wk.w.miss(fmt.Sprintf("id %d: not asked for", id))
			continue
		}
		times := want[id]
		delete(want, id)
		if wk.check(id, v1, v2) {
			// an id twice in the batch is read twice by the point paths
			wk.rows += int64(times - 1)
		}
	}
	if err := rs.Err(); err != nil {
		return workload.Outcome{}, err
	}
	for id := range want {
		wk.w.miss(fmt.Sprintf("id %d: no row", id))
	}
	return workload.Outcome{Reads: int32(n)}, nil
}

func (wk *worker) check(id, v1 int64, v2 float64) bool { return wk.w.checkRow(&wk.rows, id, v1, v2) }

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
		wk.stmt.Close()
	}
	if wk.opened {
		wk.conn.ExecContext(context.Background(), "HANDLER keyvalue CLOSE")
	}
	return wk.conn.Close()
}

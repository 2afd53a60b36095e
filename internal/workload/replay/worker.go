package replay

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"shootout/internal/capture"
	"shootout/internal/workload"
)

// commitOrder is the capture's commits as the replay makes them: done
// marks each, and ready is how many of the first ones are all done.
type commitOrder struct {
	mu    sync.Mutex
	done  []bool
	ready int
	moved chan struct{} // closed and replaced whenever ready grows
}

func newCommitOrder(n int) *commitOrder {
	return &commitOrder{done: make([]bool, n), moved: make(chan struct{})}
}

func (c *commitOrder) mark(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done[i] = true
	grew := false
	for c.ready < len(c.done) && c.done[c.ready] {
		c.ready++
		grew = true
	}
	if grew {
		close(c.moved)
		c.moved = make(chan struct{})
	}
}

// wait returns once the first n commits are done, false when ctx ends
// or until passes first.
func (c *commitOrder) wait(ctx context.Context, n int, until <-chan time.Time) bool {
	for {
		c.mu.Lock()
		ok, moved := c.ready >= n, c.moved
		c.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return false
		case <-until:
			return false
		}
	}
}

// worker replays its lane's sessions one after the other, each on a
// connection of its own.
type worker struct {
	w        *Workload
	db       *sql.DB
	first    *sql.Conn // the connection the runner gave, for the first session
	client   int
	sessions []*sess
	cur      int  // the session being replayed
	pos      int  // its next step
	c        conn // its connection, nil before its first step
	// inOrder: on the original timeline, a statement outside a
	// transaction also waits for the commits the capture saw end before
	// it began; only when every lane has a client of its own, since two
	// lanes on one client could each wait for the other
	inOrder  bool
	lag      time.Duration
	counters map[string]int64
	types    []typeFigures // per kind of session, merged into the workload's on Close
}

// next is the step to send, connecting its session first; false when
// the lane is done.
func (wk *worker) next(ctx context.Context, until time.Time) (*step, bool, error) {
	for wk.cur < len(wk.sessions) {
		se := wk.sessions[wk.cur]
		if wk.pos < len(se.steps) {
			if wk.c == nil {
				if !wk.begin(ctx, se, until) {
					return nil, true, nil
				}
				if err := wk.connect(ctx); err != nil {
					return nil, false, err
				}
			}
			return &se.steps[wk.pos], true, nil
		}
		wk.endSession()
		wk.w.ends.mark(se.ended)
		wk.cur, wk.pos = wk.cur+1, 0
	}
	return nil, false, nil
}

// begin holds a session, under timing=session and commit, until the
// sessions that had ended before it began in the capture have ended
// here; false when ctx ends or until passes first. On the original
// timeline its first command's time orders it.
func (wk *worker) begin(ctx context.Context, se *sess, until time.Time) bool {
	if wk.w.timing == Original {
		return true
	}
	var deadline <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		deadline = t.C
	}
	return wk.w.ends.wait(ctx, se.after, deadline)
}

func (wk *worker) connect(ctx context.Context) error {
	c := wk.first
	wk.first = nil
	wk.w.mark(wk.client, true)
	if c == nil {
		var err error
		if c, err = wk.db.Conn(ctx); err != nil {
			return fmt.Errorf("session %d: connect: %w", wk.sessions[wk.cur].id, err)
		}
	}
	wk.c, wk.lag = newConn(wk.w.s.header.Protocol, c), 0
	wk.figure(wk.sessions[wk.cur]).sessions++
	return nil
}

// endSession closes the session's connection, which rolls back what it
// left open, as the captured client's leaving did. A session left before
// its last command (the window ended, or the connection was lost) is not
// counted as ended.
func (wk *worker) endSession() {
	if wk.c == nil {
		return
	}
	wk.c.close()
	wk.c = nil
	if wk.pos >= len(wk.sessions[wk.cur].steps) {
		wk.w.mark(wk.client, false)
	}
	if wk.w.timing == Original {
		wk.w.behind(wk.lag)
	}
}

// wait holds st until its time: the commits before it (timing=commit),
// its place on the timeline and those commits (timing=original); false
// when ctx ends or until passes first. A statement held past its place
// by a commit counts as its session's lag.
func (wk *worker) wait(ctx context.Context, st *step, until time.Time) bool {
	var deadline <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		deadline = t.C
	}
	switch wk.w.timing {
	case Commit:
		return wk.w.commits.wait(ctx, st.needs, deadline)
	case Original:
		// on time but before what it read was made, a statement would
		// read tables a late migration has not made yet (pgreplay, too,
		// keeps the log's order). Never inside a transaction: holding its
		// locks while it waits for another session's commit, it could
		// block the very statement that commit waits behind
		if wk.inOrder && !st.inTx && !wk.w.commits.wait(ctx, st.needs, deadline) {
			return false
		}
		due := wk.w.zero().Add(time.Duration(float64(st.at) / wk.w.speed))
		d := time.Until(due)
		if d <= 0 {
			wk.lag = max(wk.lag, -d)
			return true
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
		case <-deadline:
		}
		return false
	}
	return true
}

// send sends st and compares the answer with the capture's.
func (wk *worker) send(ctx context.Context, st *step) (workload.Outcome, time.Duration) {
	t0 := time.Now()
	a := wk.exec(ctx, st)
	took := time.Since(t0)
	wk.pos++
	wk.counters["sent"]++
	if st.commit >= 0 {
		// done whatever the answer: a later statement must not wait for
		// a commit that failed here
		wk.w.commits.mark(st.commit)
	}
	if st.op < 0 {
		return workload.Outcome{Op: -1}, took
	}
	wk.timed(took)
	wk.compare(st, a)
	return outcome(st), took
}

func (wk *worker) exec(ctx context.Context, st *step) answer {
	switch st.Kind {
	case capture.KindPrepare:
		return wk.c.prepare(ctx, st.Stmt, st.Text)
	case capture.KindExecute:
		return wk.c.execute(ctx, st.Stmt, st.Text, st.Params)
	case capture.KindClose:
		wk.c.closeStmt(ctx, st.Stmt)
		return answer{}
	case capture.KindPing:
		return wk.c.ping(ctx)
	}
	return wk.c.text(ctx, st.Text)
}

// compare counts, per fingerprint, the answers that differ from the
// capture's: an error it did not have (or had and the replay did not),
// another count of rows, other rows.
func (wk *worker) compare(st *step, a answer) {
	op := fmt.Sprint(st.op)
	captured := st.Error != nil
	switch {
	case a.err != nil && !captured:
		wk.counters["new_error:"+op]++
		wk.w.note("new_error:"+op, firstLine(a.err.Error()))
	case a.err == nil && captured:
		wk.counters["lost_error:"+op]++
		wk.w.note("lost_error:"+op, st.Error.Code+" "+firstLine(st.Error.Message))
	case captured && a.code != "" && st.Error.Code != "" && a.code != st.Error.Code:
		wk.counters["other_error:"+op]++
		wk.w.note("other_error:"+op, fmt.Sprintf("%s, the capture's %s", a.code, st.Error.Code))
	}
	if a.err != nil || captured {
		return
	}
	switch {
	case wk.w.s.counted && a.rows != st.Rows:
		wk.counters["rows:"+op]++
		wk.w.note("rows:"+op, fmt.Sprintf("%d rows, the capture's %d (its line %d)", a.rows, st.Rows, st.line))
	case a.sum != "" && st.Checksum != "" && a.sum != st.Checksum:
		wk.counters["checksum:"+op]++
		wk.w.note("checksum:"+op, fmt.Sprintf("rows other than the capture's (its line %d)", st.line))
	}
}

func outcome(st *step) workload.Outcome {
	out := workload.Outcome{Op: st.op}
	switch fp := strings.ToLower(strings.TrimSpace(st.Text)); {
	case st.Kind == capture.KindPrepare, st.Kind == capture.KindPing:
		out.Other = 1
	case strings.HasPrefix(fp, "select"), strings.HasPrefix(fp, "with"), strings.HasPrefix(fp, "show"):
		out.Reads = 1
	case strings.HasPrefix(fp, "insert"), strings.HasPrefix(fp, "update"), strings.HasPrefix(fp, "delete"), strings.HasPrefix(fp, "replace"):
		out.Writes = 1
	default:
		out.Other = 1
	}
	return out
}

// Do sends the next timed statement, after the untimed ones before it
// and after its wait, which is part of what the driver times. A run
// uses Loop, which times the statement alone: the plan refuses a rate
// or a count of operations for a replay (PacedBy), the driver's only
// reasons to call Do.
func (wk *worker) Do(ctx context.Context) (workload.Outcome, error) {
	for {
		st, ok, err := wk.next(ctx, time.Time{})
		if err != nil || !ok {
			if err == nil {
				err = workload.ErrClientDone
			}
			return workload.Outcome{}, err
		}
		if st == nil {
			return workload.Outcome{}, ctx.Err()
		}
		if !wk.wait(ctx, st, time.Time{}) {
			return workload.Outcome{}, ctx.Err()
		}
		if out, _ := wk.send(ctx, st); out.Op >= 0 {
			return out, nil
		}
	}
}

// Loop replays until the lane is done (ErrClientDone) or until passes;
// each statement is timed alone, its wait for its turn left out, and
// the stall watch sees only a statement the server has not answered.
func (wk *worker) Loop(ctx context.Context, until time.Time, rec workload.LoopRecorder) (workload.Outcome, error) {
	for ctx.Err() == nil && time.Now().Before(until) {
		st, ok, err := wk.next(ctx, until)
		if err != nil {
			return workload.Outcome{}, err
		}
		if !ok {
			return workload.Outcome{}, workload.ErrClientDone
		}
		if st == nil {
			return workload.Outcome{}, nil
		}
		if !wk.wait(ctx, st, until) {
			return workload.Outcome{}, nil
		}
		rec.InFlight(time.Now().UnixNano())
		out, took := wk.send(ctx, st)
		rec.InFlight(0)
		if out.Op >= 0 {
			rec.Finished(out, took)
		}
	}
	return workload.Outcome{}, nil
}

// Abort has nothing to roll back: a replay's errors are the server's
// answers, compared with the capture's, never the driver's to retry.
func (wk *worker) Abort(ctx context.Context) {}

func (wk *worker) Counters() map[string]int64 { return wk.counters }

func (wk *worker) Close() error {
	wk.endSession()
	wk.w.mergeTypes(wk)
	if wk.first != nil {
		wk.first.Close()
		wk.first = nil
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

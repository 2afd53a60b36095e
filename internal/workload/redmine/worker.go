package redmine

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

const (
	opCreate = iota
	opProcess10
)

// counts is what a worker's committed requests changed.
type counts struct {
	issuesCreated, comments, journals, details int64
	resolved, logicalBytes                     int64
}

// rowRef names a row by its table and id.
type rowRef struct {
	table string
	id    int64
}

// doubtfulCommit is a transaction whose COMMIT went unanswered because the
// connection was lost: it committed if and only if its first row exists.
type doubtfulCommit struct {
	row    rowRef
	counts counts
	// create: the transaction made a create cycle's issue, whose cycle
	// was then given up before its comments
	create bool
}

func (c *counts) add(o counts) {
	c.issuesCreated += o.issuesCreated
	c.comments += o.comments
	c.journals += o.journals
	c.details += o.details
	c.resolved += o.resolved
	c.logicalBytes += o.logicalBytes
}

// cycle is one work cycle in progress: a list of requests, each its own
// transaction, and how far it got. A request that fails is run again from
// its start on the next Do, as a user retries the click that failed.
type cycle struct {
	kind  int
	steps []func(context.Context) error
	next  int
	// create: the new issue, once its request committed
	issue int64
	// process10: the user, whose New issues the pool lent the cycle
	user int
}

// cycles is what both clients, SQL and HTTP, keep of the work cycles:
// the one in progress, which comes next, the pool that lends process10 its
// user, and what the cycles did and left undone.
type cycles struct {
	nextKind int
	op       *cycle
	out      workload.Outcome
	pool     *newIssues // nil: process10 picks users at random

	lists, listed, shortLists, process10Waits int64
	unfinishedCreates, unfinishedProcess      int64
}

// do runs the cycle in progress, or a new one, to its end; a step that
// fails is run again from its start on the next call.
func (cs *cycles) do(ctx context.Context, newCycle func() *cycle) (workload.Outcome, error) {
	if cs.op == nil {
		cs.op = newCycle()
	}
	// the outcome is this attempt's: the driver counts the statements of
	// a failed one too (a request run again after a deadlock sent its
	// statements twice, and the server did that work twice)
	cs.out = workload.Outcome{Op: cs.op.kind}
	for cs.op.next < len(cs.op.steps) {
		if err := cs.op.steps[cs.op.next](ctx); err != nil {
			return cs.out, err
		}
		cs.op.next++
	}
	cs.endCycle()
	return cs.out, nil
}

// Abandon gives up the cycle in progress; Check allows for what it left.
func (cs *cycles) Abandon() {
	if cs.op == nil {
		return
	}
	switch {
	case cs.op.kind == opCreate && cs.op.issue != 0:
		cs.unfinishedCreates++
	case cs.op.kind == opProcess10:
		cs.unfinishedProcess++
	}
	cs.endCycle()
}

func (cs *cycles) endCycle() {
	if cs.op.kind == opProcess10 && cs.op.user != 0 && cs.pool != nil {
		cs.pool.release(cs.op.user)
	}
	cs.op = nil
}

// turn is the kind of the client's next cycle and, for process10, its
// user. The clients alternate the two; with a pool, a process10 turn
// waits (a create runs instead) until a free user has a full list.
func (cs *cycles) turn(rng *rand.Rand, users int) (kind, user int) {
	if cs.nextKind == opCreate {
		cs.nextKind = opProcess10
		return opCreate, 0
	}
	if cs.pool == nil {
		cs.nextKind = opCreate
		return opProcess10, userID(rng.IntN(users))
	}
	u, ok := cs.pool.take(rng)
	if !ok {
		cs.process10Waits++
		return opCreate, 0
	}
	cs.nextKind = opCreate
	return opProcess10, u
}

// assignee is whom a create cycle assigns its issue to.
func (cs *cycles) assignee(rng *rand.Rand, ms []int, author int) int {
	if cs.pool != nil {
		return cs.pool.feed(rng, ms, author)
	}
	return ms[(author+1+rng.IntN(len(ms)-1))%len(ms)]
}

// listed records a process10 list of n issues.
func (cs *cycles) listedIssues(n int) {
	cs.lists++
	cs.listed += int64(n)
	if n < listLength {
		cs.shortLists++
	}
}

type worker struct {
	w    *Workload
	wd   *world
	d    dialect.Dialect
	conn *sql.Conn
	rng  *rand.Rand

	times    workload.StatementTimes
	bound    map[string]string    // statement text in the dialect's placeholders
	prepared map[string]*sql.Stmt // protocol=prepared: by bound text
	// cache is Rails' query cache: the reads of the request in progress
	// since its last write, which Redmine does not send again
	cache map[string][][]any
	// trace, when set, sees every statement sent (the capture test)
	trace func(name, text string)
	inTx  bool
	cycles

	committed, pending counts
	// firstInsert is the open transaction's first new row
	firstInsert rowRef
	// events that are not rows: optimistic-lock reloads, issues another
	// user took first, lists shorter than 10, cycles given up
	stale, taken, noops, parentSearches, prefUpdates int64
}

// NewWorker readies a client on conn; statements are sent as Rails sends
// them (protocol=text) or prepared on first use (protocol=prepared).
func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	wd, err := w.world(ds)
	if err != nil {
		return nil, err
	}
	seed := uint64(time.Now().UnixNano()) ^ uint64(client)<<32
	wk := w.newWorker(conn, d, wd, rand.New(rand.NewPCG(seed, uint64(ds.Seed))), client)
	w.mu.Lock()
	wk.pool = w.pool
	w.mu.Unlock()
	return wk, nil
}

func (w *Workload) newWorker(conn *sql.Conn, d dialect.Dialect, wd *world, rng *rand.Rand, client int) *worker {
	return &worker{w: w, wd: wd, d: d, conn: conn, rng: rng, cycles: cycles{nextKind: client % 2},
		bound: map[string]string{}, cache: map[string][][]any{}}
}

func (wk *worker) Do(ctx context.Context) (workload.Outcome, error) {
	return wk.cycles.do(ctx, wk.newCycle)
}

func (wk *worker) Abort(ctx context.Context) {
	if wk.inTx {
		wk.tx(ctx, "transaction.rollback", "ROLLBACK")
		wk.inTx = false
	}
	wk.pending, wk.firstInsert = counts{}, rowRef{}
}

func (wk *worker) Counters() map[string]int64 {
	c := wk.committed
	return map[string]int64{
		"issues_created": c.issuesCreated, "comments": c.comments, "journals": c.journals,
		"journal_details": c.details, "issues_resolved": c.resolved,
		workload.LogicalBytes: c.logicalBytes, "stale_reloads": wk.stale, "issues_taken_by_others": wk.taken,
		"short_lists": wk.shortLists, "unfinished_creates": wk.unfinishedCreates,
		"unfinished_process10": wk.unfinishedProcess, "parent_recalculations": wk.parentSearches,
		"preference_updates": wk.prefUpdates, "unchanged_updates": wk.noops, "issues_listed": wk.listed, "process10_lists": wk.lists,
		"process10_waits": wk.process10Waits,
	}
}

func (wk *worker) Statements() []workload.StatementStat { return wk.times.Stats() }

func (wk *worker) Close() error {
	for _, st := range wk.prepared {
		st.Close()
	}
	return wk.conn.Close()
}

// newCycle alternates the two work cycles; clients start on different
// ones so both run at every moment.
func (wk *worker) newCycle() *cycle {
	kind, user := wk.turn(wk.rng, wk.wd.shape.users)
	if kind == opCreate {
		return wk.createCycle()
	}
	return wk.processCycle(user)
}

// twoPhase makes a cycle step of a write request: the part up to its
// COMMIT, then what the request reads after it. A step that fails after
// the COMMIT is run again from there only, so a retry never writes twice.
func (wk *worker) twoPhase(main func(context.Context) (func(context.Context) error, error)) func(context.Context) error {
	var after func(context.Context) error
	return func(ctx context.Context) error {
		if after == nil {
			a, err := main(ctx)
			if err != nil || a == nil {
				return err
			}
			after = a
		}
		return after(ctx)
	}
}

// drawCreate draws a create cycle: a project p (0-based), its members ms,
// the author (ms[a]) and another member to assign, now and then an open
// recent root to be the parent, the texts.
func (wd *world) drawCreate(rng *rand.Rand, cs *cycles) (p int, ms []int, a, author, assignee, parent int, subject, description string) {
	p = rng.IntN(len(wd.members))
	ms = wd.members[p]
	a = rng.IntN(len(ms))
	author, assignee = ms[a], cs.assignee(rng, ms, a)
	if rs := wd.openRoots[p]; len(rs) > 0 && rng.Float64() < wd.subtasks {
		parent = rs[len(rs)-1-rng.IntN(min(len(rs), 50))]
	}
	return p, ms, a, author, assignee, parent, wd.pool.cut(rng, subjectLen(rng)), wd.pool.cut(rng, descriptionLen(rng))
}

// createCycle: a member of a random project creates an issue assigned to
// another member (sometimes a subtask of a recent issue), then ten other
// members comment on it, one request each.
func (wk *worker) createCycle() *cycle {
	c := &cycle{kind: opCreate}
	p, ms, a, author, assignee, parent, subject, description := wk.wd.drawCreate(wk.rng, &wk.cycles)
	c.steps = append(c.steps, wk.twoPhase(func(ctx context.Context) (func(context.Context) error, error) {
		id, after, err := wk.createIssue(ctx, author, p+1, assignee, parent, subject, description)
		if err == nil {
			c.issue = id // an id from a rolled-back attempt names no issue
			if wk.pool != nil {
				wk.pool.assigned(assignee)
			}
		}
		return after, err
	}))
	for k := 0; k < commentsPerIssue; k++ {
		commenter := ms[(a+1+k%(len(ms)-1))%len(ms)]
		notes := wk.wd.pool.cut(wk.rng, commentLen(wk.rng))
		c.steps = append(c.steps, wk.twoPhase(func(ctx context.Context) (func(context.Context) error, error) {
			return wk.comment(ctx, commenter, c.issue, notes)
		}))
	}
	return c
}

// processCycle: a user lists the issues assigned to them (10 at most),
// moves each to In Progress, then one by one to Resolved, reassigned to
// its author.
func (wk *worker) processCycle(user int) *cycle {
	c := &cycle{kind: opProcess10, user: user}
	c.steps = append(c.steps, func(ctx context.Context) error {
		ids, err := wk.listAssigned(ctx, user)
		if err != nil {
			return err
		}
		wk.listedIssues(len(ids))
		for _, id := range ids {
			id := id
			c.steps = append(c.steps, wk.twoPhase(func(ctx context.Context) (func(context.Context) error, error) {
				return wk.changeStatus(ctx, user, id, statusInProgress, false)
			}))
		}
		for _, id := range ids {
			id := id
			c.steps = append(c.steps, wk.twoPhase(func(ctx context.Context) (func(context.Context) error, error) {
				return wk.changeStatus(ctx, user, id, statusResolved, true)
			}))
		}
		return nil
	})
	return c
}

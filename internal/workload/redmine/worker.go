package redmine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

const (
	opCreate = iota
	opProcess10
)

// stmt is one prepared statement and what its client saw of it.
type stmt struct {
	name, text            string
	st                    *sql.Stmt
	calls, totalNs, maxNs int64
}

func (s *stmt) record(start time.Time) {
	ns := int64(time.Since(start))
	s.calls++
	s.totalNs += ns
	s.maxNs = max(s.maxNs, ns)
}

// counts is what a worker's committed requests changed.
type counts struct {
	issuesCreated, comments, journals, details int64
	resolved, logicalBytes                     int64
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
}

type worker struct {
	w    *Workload
	wd   *world
	d    dialect.Dialect
	conn *sql.Conn
	rng  *rand.Rand
	st   [nStatements]*stmt
	tx   struct{ begin, commit, rollback *stmt }
	inTx bool

	nextKind int
	op       *cycle
	out      workload.Outcome

	committed, pending counts
	// events that are not rows: optimistic-lock reloads, issues another
	// user took first, lists shorter than 10, cycles given up
	stale, taken, shortLists, unfinishedCreates, unfinishedProcess, parentSearches int64
}

// errStale is Rails' StaleObjectError: the UPDATE ... AND lock_version = ?
// matched no row because someone saved the issue since it was read.
var errStale = errors.New("stale lock_version")

// maxReloads bounds how often one request reloads a contended issue before
// the cell fails: far above what even four clients on one issue need.
const maxReloads = 50

// NewWorker prepares every statement of both work cycles on conn.
func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	wd, err := w.world(ds)
	if err != nil {
		return nil, err
	}
	seed := uint64(time.Now().UnixNano()) ^ uint64(client)<<32
	wk := &worker{w: w, wd: wd, d: d, conn: conn, rng: rand.New(rand.NewPCG(seed, uint64(ds.Seed))), nextKind: client % 2}
	for i, t := range statementTexts(d) {
		s := &stmt{name: t.name, text: t.sql}
		if s.st, err = conn.PrepareContext(ctx, d.Bind(t.sql)); err != nil {
			wk.Close()
			return nil, fmt.Errorf("prepare %s: %w", t.name, err)
		}
		wk.st[i] = s
	}
	wk.tx.begin = &stmt{name: "transaction.begin", text: d.Begin(true)}
	wk.tx.commit = &stmt{name: "transaction.commit", text: "COMMIT"}
	wk.tx.rollback = &stmt{name: "transaction.rollback", text: "ROLLBACK"}
	return wk, nil
}

func (wk *worker) Do(ctx context.Context) (workload.Outcome, error) {
	if wk.op == nil {
		wk.op = wk.newCycle()
		// the outcome spans every attempt of the cycle: a request run
		// again after a deadlock sent its statements twice, and the
		// server did that work twice
		wk.out = workload.Outcome{Op: wk.op.kind}
	}
	for wk.op.next < len(wk.op.steps) {
		if err := wk.op.steps[wk.op.next](ctx); err != nil {
			return wk.out, err
		}
		wk.op.next++
	}
	wk.op = nil
	return wk.out, nil
}

func (wk *worker) Abort(ctx context.Context) {
	if wk.inTx {
		wk.run(ctx, wk.tx.rollback)
		wk.inTx = false
	}
	wk.pending = counts{}
}

// Abandon gives up the cycle in progress; Check allows for what it left.
func (wk *worker) Abandon() {
	if wk.op == nil {
		return
	}
	switch {
	case wk.op.kind == opCreate && wk.op.issue != 0:
		wk.unfinishedCreates++
	case wk.op.kind == opProcess10:
		wk.unfinishedProcess++
	}
	wk.op = nil
}

func (wk *worker) Counters() map[string]int64 {
	c := wk.committed
	return map[string]int64{
		"issues_created": c.issuesCreated, "comments": c.comments, "journals": c.journals,
		"journal_details": c.details, "issues_resolved": c.resolved,
		workload.LogicalBytes: c.logicalBytes, "stale_reloads": wk.stale, "issues_taken_by_others": wk.taken,
		"short_lists": wk.shortLists, "unfinished_creates": wk.unfinishedCreates,
		"unfinished_process10": wk.unfinishedProcess, "parent_recalculations": wk.parentSearches,
	}
}

func (wk *worker) Statements() []workload.StatementStat {
	var out []workload.StatementStat
	all := append(wk.st[:], wk.tx.begin, wk.tx.commit, wk.tx.rollback)
	for _, s := range all {
		if s == nil || s.calls == 0 {
			continue
		}
		out = append(out, workload.StatementStat{Name: s.name, Query: strings.Join(strings.Fields(s.text), " "),
			Calls: s.calls, TotalNs: s.totalNs, MaxNs: s.maxNs})
	}
	return out
}

func (wk *worker) Close() error {
	for _, s := range wk.st {
		if s != nil && s.st != nil {
			s.st.Close()
		}
	}
	return wk.conn.Close()
}

// newCycle alternates the two work cycles; clients start on different
// ones so both run at every moment.
func (wk *worker) newCycle() *cycle {
	kind := wk.nextKind
	wk.nextKind = 1 - kind
	if kind == opCreate {
		return wk.createCycle()
	}
	return wk.processCycle()
}

// createCycle: a member of a random project creates an issue assigned to
// another member (sometimes a subtask of a recent issue), then ten other
// members comment on it, one request each.
func (wk *worker) createCycle() *cycle {
	c := &cycle{kind: opCreate}
	p := wk.rng.IntN(len(wk.wd.members))
	ms := wk.wd.members[p]
	a := wk.rng.IntN(len(ms))
	author, assignee := ms[a], ms[(a+1+wk.rng.IntN(len(ms)-1))%len(ms)]
	parent := 0
	if rs := wk.wd.roots[p]; len(rs) > 0 && wk.rng.Float64() < wk.wd.subtasks {
		parent = rs[len(rs)-1-wk.rng.IntN(min(len(rs), 50))]
	}
	subject := wk.wd.pool.cut(wk.rng, subjectLen(wk.rng))
	description := wk.wd.pool.cut(wk.rng, descriptionLen(wk.rng))
	c.steps = append(c.steps, func(ctx context.Context) error {
		id, err := wk.createIssue(ctx, author, p+1, assignee, parent, subject, description)
		if err == nil {
			c.issue = id // an id from a rolled-back attempt names no issue
		}
		return err
	})
	for k := 0; k < commentsPerIssue; k++ {
		commenter := ms[(a+1+k%(len(ms)-1))%len(ms)]
		notes := wk.wd.pool.cut(wk.rng, commentLen(wk.rng))
		c.steps = append(c.steps, func(ctx context.Context) error { return wk.comment(ctx, commenter, c.issue, notes) })
	}
	return c
}

// processCycle: a user lists the issues assigned to them (10 at most),
// moves each to In Progress, then one by one to Resolved, reassigned to
// its author.
func (wk *worker) processCycle() *cycle {
	c := &cycle{kind: opProcess10}
	user := userID(wk.rng.IntN(wk.wd.shape.users))
	c.steps = append(c.steps, func(ctx context.Context) error {
		ids, err := wk.listAssigned(ctx, user)
		if err != nil {
			return err
		}
		if len(ids) < 10 {
			wk.shortLists++
		}
		for _, id := range ids {
			id := id
			c.steps = append(c.steps, func(ctx context.Context) error { return wk.changeStatus(ctx, user, id, statusInProgress, false) })
		}
		for _, id := range ids {
			id := id
			c.steps = append(c.steps, func(ctx context.Context) error { return wk.changeStatus(ctx, user, id, statusResolved, true) })
		}
		return nil
	})
	return c
}

// --- requests ---

// authenticate is what every API request does before its action: check
// the settings cache, find the API key's user, load their preferences.
func (wk *worker) authenticate(ctx context.Context, user int) error {
	if _, err := wk.query(ctx, sSettingsCache); err != nil {
		return err
	}
	rows, err := wk.query(ctx, sTokenFind, wk.wd.apiKey(user))
	if err != nil {
		return err
	}
	if len(rows) != 1 || asInt(rows[0][1]) != int64(user) {
		return fmt.Errorf("api key of user %d not found", user)
	}
	if _, err := wk.query(ctx, sUserFind, user); err != nil {
		return err
	}
	_, err = wk.query(ctx, sPrefFind, user)
	return err
}

// authorize loads the project, its modules and the user's roles in it, as
// User#allowed_to? does; it returns the user's role.
func (wk *worker) authorize(ctx context.Context, user int, project int64) (int64, error) {
	if _, err := wk.query(ctx, sProjectFind, project); err != nil {
		return 0, err
	}
	if _, err := wk.query(ctx, sModules, project); err != nil {
		return 0, err
	}
	roles, err := wk.query(ctx, sRoles, user, project)
	if err != nil {
		return 0, err
	}
	if len(roles) == 0 {
		return 0, fmt.Errorf("user %d is not a member of project %d", user, project)
	}
	return asInt(roles[0][0]), nil
}

func (wk *worker) begin(ctx context.Context) error {
	if _, err := wk.run(ctx, wk.tx.begin); err != nil {
		return err
	}
	wk.inTx = true
	return nil
}

func (wk *worker) commit(ctx context.Context) error {
	if _, err := wk.run(ctx, wk.tx.commit); err != nil {
		return err
	}
	wk.inTx = false
	wk.committed.add(wk.pending)
	wk.pending = counts{}
	return nil
}

// retryStale runs a request again after an optimistic-lock conflict, as a
// user reloads the page and submits again.
func (wk *worker) retryStale(ctx context.Context, request func() error) error {
	for reload := 0; ; reload++ {
		err := request()
		if !errors.Is(err, errStale) {
			return err
		}
		wk.Abort(ctx)
		wk.stale++
		if reload >= maxReloads {
			return fmt.Errorf("an issue stayed contended through %d reloads: %w", maxReloads, err)
		}
	}
}

func (wk *worker) createIssue(ctx context.Context, author, project, assignee, parent int, subject, description string) (int64, error) {
	var id int64
	err := wk.retryStale(ctx, func() error {
		if err := wk.authenticate(ctx, author); err != nil {
			return err
		}
		if _, err := wk.authorize(ctx, author, int64(project)); err != nil {
			return err
		}
		for _, q := range []struct {
			s    stmtID
			args []any
		}{{sDefaultPriority, nil}, {sTrackers, []any{project}}, {sStatusFind, []any{statusNew}}} {
			if _, err := wk.query(ctx, q.s, q.args...); err != nil {
				return err
			}
		}
		if parent != 0 {
			if par, err := wk.findIssue(ctx, int64(parent)); err != nil {
				return err
			} else if par == nil {
				return fmt.Errorf("parent issue %d not found", parent)
			}
		}
		if err := wk.begin(ctx); err != nil {
			return err
		}
		// the assignee is validated inside the transaction
		if err := wk.checkAssignee(ctx, project, assignee); err != nil {
			return err
		}
		now := time.Now().UTC().Truncate(time.Second)
		day := now.Truncate(24 * time.Hour)
		var err error
		if parent == 0 {
			id, err = wk.insert(ctx, sIssueInsert, 1, project, subject, description, statusNew, assignee, priorityNormal,
				author, now, now, day, nil, nil, nil, nil)
			if err != nil {
				return err
			}
			if _, err := wk.exec(ctx, sIssueSetNested, id, id); err != nil {
				return err
			}
		} else if id, err = wk.insertSubtask(ctx, int64(parent), project, subject, description, assignee, author, now, day); err != nil {
			return err
		}
		if _, err := wk.query(ctx, sCustomValues, id); err != nil {
			return err
		}
		if _, err := wk.query(ctx, sRelationsFrom, id); err != nil {
			return err
		}
		if parent != 0 {
			if err := wk.recalculateParent(ctx, int64(parent), author, id); err != nil {
				return err
			}
		}
		wk.pending.issuesCreated++
		return wk.commit(ctx)
	})
	return id, err
}

// checkAssignee is Redmine's validation of an assignee: the assignable
// roles, then the project's assignable users.
func (wk *worker) checkAssignee(ctx context.Context, project any, assignee int) error {
	if _, err := wk.query(ctx, sUserFind, assignee); err != nil {
		return err
	}
	if _, err := wk.query(ctx, sAssignableRoles); err != nil {
		return err
	}
	_, err := wk.query(ctx, sAssignable, project)
	return err
}

// insertSubtask puts a new issue last under its parent in the nested set,
// as Redmine's IssueNestedSet does: lock the parent's whole tree, read the
// parent and the right edge of its children again under the lock, open a
// gap, insert the issue into it.
func (wk *worker) insertSubtask(ctx context.Context, parent int64, project int, subject, description string, assignee, author int, now, day time.Time) (int64, error) {
	if _, err := wk.query(ctx, sIssueLockTree, parent); err != nil {
		return 0, err
	}
	rows, err := wk.query(ctx, sParentNested, parent)
	if err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		return 0, fmt.Errorf("parent issue %d vanished", parent)
	}
	root, rgt := asInt(rows[0][0]), asInt(rows[0][2])
	if _, err := wk.query(ctx, sSiblingsMaxRgt, root, parent); err != nil {
		return 0, err
	}
	if _, err := wk.exec(ctx, sIssueShift, rgt, rgt, root, rgt, rgt); err != nil {
		return 0, err
	}
	return wk.insert(ctx, sIssueInsert, 1, project, subject, description, statusNew, assignee, priorityNormal,
		author, now, now, day, parent, root, rgt, rgt+1)
}

// recalculateParent derives a parent's priority, dates and done ratio
// from its children, as Issue#recalculate_attributes_for does with the
// parent_issue_* settings at "derived": four reads by parent_id (the
// search that has no index in the redmine3.3 schema), each child's total
// estimated hours through the nested set, then the parent saved if any of
// it changed. For a new subtask (child != 0) the parent is always saved,
// with a journal recording the child (create_parent_issue_journal).
func (wk *worker) recalculateParent(ctx context.Context, parent int64, user int, child int64) error {
	wk.parentSearches++
	par, err := wk.findIssue(ctx, parent)
	if err != nil {
		return err
	}
	if par == nil {
		return fmt.Errorf("parent issue %d vanished", parent)
	}
	top, err := wk.query(ctx, sChildrenMaxPriority, parent)
	if err != nil {
		return err
	}
	for _, s := range []stmtID{sChildrenMinStart, sChildrenMaxDue} {
		if _, err := wk.query(ctx, s, parent); err != nil {
			return err
		}
	}
	children, err := wk.query(ctx, sChildren, parent)
	if err != nil {
		return err
	}
	priority, done := asInt(par[issueCols["priority_id"]]), asInt(par[issueCols["done_ratio"]])
	if len(top) > 0 && top[0][0] != nil {
		priority = asInt(top[0][0]) // priorities' ids are their positions
	} else {
		priority = priorityNormal // all children closed: the default priority
	}
	if len(children) > 0 {
		if done, err = wk.derivedDoneRatio(ctx, children); err != nil {
			return err
		}
	}
	if child == 0 && priority == asInt(par[issueCols["priority_id"]]) && done == asInt(par[issueCols["done_ratio"]]) {
		return nil // Rails saves nothing when nothing changed
	}
	now := time.Now().UTC().Truncate(time.Second)
	if err := wk.saveIssue(ctx, par, sParentUpdate, priority, done, now); err != nil {
		return err
	}
	if _, err := wk.query(ctx, sCustomValues, parent); err != nil {
		return err
	}
	if child == 0 {
		return nil
	}
	journal, err := wk.insert(ctx, sJournalInsert, parent, user, "", now)
	if err != nil {
		return err
	}
	if _, err := wk.exec(ctx, sDetailInsert, journal, "child_id", nil, strconv.FormatInt(child, 10)); err != nil {
		return err
	}
	wk.pending.journals++
	wk.pending.details++
	return nil
}

// derivedDoneRatio weighs children by their total estimated hours (the
// average of those that have some, 1 if none has), closed ones at 100%.
func (wk *worker) derivedDoneRatio(ctx context.Context, children [][]any) (int64, error) {
	estimates := make([]float64, len(children))
	var sum float64
	var with int
	for i, c := range children {
		rows, err := wk.query(ctx, sTotalEstimated, c[issueCols["root_id"]], c[issueCols["lft"]], c[issueCols["rgt"]])
		if err != nil {
			return 0, err
		}
		if len(rows) > 0 && asFloat(rows[0][0]) > 0 {
			estimates[i] = asFloat(rows[0][0])
			sum += estimates[i]
			with++
		}
	}
	average := 1.0
	if with > 0 {
		average = sum / float64(with)
	}
	var total float64
	for i, c := range children {
		e := estimates[i]
		if e <= 0 {
			e = average
		}
		ratio := float64(asInt(c[issueCols["done_ratio"]]))
		if isClosed(int(asInt(c[issueCols["status_id"]]))) {
			ratio = 100
		}
		total += e * ratio
	}
	return int64(total / (average * float64(len(children)))), nil
}

// findIssue reads an issue; nil without an error when there is none. A
// database error is returned as it is, so the driver classifies it (a
// deadlock is retried, a lost connection reconnects) like any other.
func (wk *worker) findIssue(ctx context.Context, id int64) ([]any, error) {
	rows, err := wk.query(ctx, sIssueFind, id)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}

// loadForEdit is what the issue update action reads before its
// transaction: the issue, the project and the user's roles in it, the
// issue's tracker and status, and the statuses the workflow allows from
// here. It returns the issue and the user's role.
func (wk *worker) loadForEdit(ctx context.Context, user int, issue int64) ([]any, int64, error) {
	is, err := wk.findIssue(ctx, issue)
	if err != nil {
		return nil, 0, err
	}
	if is == nil {
		return nil, 0, fmt.Errorf("issue %d not found", issue)
	}
	role, err := wk.authorize(ctx, user, asInt(is[issueCols["project_id"]]))
	if err != nil {
		return nil, 0, err
	}
	tracker, status := asInt(is[issueCols["tracker_id"]]), asInt(is[issueCols["status_id"]])
	if _, err := wk.query(ctx, sStatusFind, status); err != nil {
		return nil, 0, err
	}
	if _, err := wk.query(ctx, sAllowedStatuses, role, tracker, status); err != nil {
		return nil, 0, err
	}
	return is, role, nil
}

// comment adds a note to an issue: the issue's updated_on and lock_version
// move (the UPDATE matches only the version read), a journal with the notes
// is written.
func (wk *worker) comment(ctx context.Context, user int, issue int64, notes string) error {
	return wk.retryStale(ctx, func() error {
		if err := wk.authenticate(ctx, user); err != nil {
			return err
		}
		is, _, err := wk.loadForEdit(ctx, user, issue)
		if err != nil {
			return err
		}
		if err := wk.begin(ctx); err != nil {
			return err
		}
		now := time.Now().UTC().Truncate(time.Second)
		if err := wk.saveIssue(ctx, is, sIssueTouch, now); err != nil {
			return err
		}
		if _, err := wk.query(ctx, sCustomValues, issue); err != nil {
			return err
		}
		if _, err := wk.insert(ctx, sJournalInsert, issue, user, notes, now); err != nil {
			return err
		}
		wk.pending.journals++
		wk.pending.comments++
		return wk.commit(ctx)
	})
}

// listAssigned is the "assigned to me" list: a count for the pager, then
// the first page of ten, newest first, then the priorities it shows.
func (wk *worker) listAssigned(ctx context.Context, user int) ([]int64, error) {
	if err := wk.authenticate(ctx, user); err != nil {
		return nil, err
	}
	if _, err := wk.query(ctx, sCountAssigned, user, user, user); err != nil {
		return nil, err
	}
	rows, err := wk.query(ctx, sListAssigned, user, user, user)
	if err != nil {
		return nil, err
	}
	if _, err := wk.query(ctx, sPriorities); err != nil {
		return nil, err
	}
	var ids []int64
	for _, r := range rows {
		ids = append(ids, asInt(r[issueCols["id"]]))
	}
	return ids, nil
}

// changeStatus moves an issue to a new status, optionally reassigning it to
// its author: workflow check, the UPDATE guarded by lock_version, a journal
// with one detail per changed field, the parent's derived fields.
func (wk *worker) changeStatus(ctx context.Context, user int, issue int64, status int, toAuthor bool) error {
	return wk.retryStale(ctx, func() error {
		if err := wk.authenticate(ctx, user); err != nil {
			return err
		}
		is, role, err := wk.loadForEdit(ctx, user, issue)
		if err != nil {
			return err
		}
		oldStatus := asInt(is[issueCols["status_id"]])
		assigned := is[issueCols["assigned_to_id"]]
		if assigned == nil || asInt(assigned) != int64(user) || isClosed(int(oldStatus)) {
			wk.taken++ // someone else moved it on since the list was read
			return nil
		}
		newAssignee := int64(user)
		if toAuthor {
			newAssignee = asInt(is[issueCols["author_id"]])
		}
		if oldStatus == int64(status) && newAssignee == int64(user) {
			return nil // nothing to change: Redmine writes no journal
		}
		tracker := asInt(is[issueCols["tracker_id"]])
		if _, err := wk.query(ctx, sStatusFind, status); err != nil {
			return err
		}
		allowed, err := wk.query(ctx, sWorkflows, role, tracker, oldStatus)
		if err != nil {
			return err
		}
		if oldStatus != int64(status) && !allows(allowed, int64(status)) {
			return fmt.Errorf("workflow of role %d, tracker %d does not allow status %d -> %d", role, tracker, oldStatus, status)
		}
		if err := wk.begin(ctx); err != nil {
			return err
		}
		if newAssignee != int64(user) {
			if err := wk.checkAssignee(ctx, asInt(is[issueCols["project_id"]]), int(newAssignee)); err != nil {
				return err
			}
			if _, err := wk.query(ctx, sUserFind, user); err != nil {
				return err
			}
		}
		now := time.Now().UTC().Truncate(time.Second)
		if err := wk.saveIssue(ctx, is, sIssueUpdate, status, newAssignee, asInt(is[issueCols["done_ratio"]]), nil, now); err != nil {
			return err
		}
		if _, err := wk.query(ctx, sCustomValues, issue); err != nil {
			return err
		}
		journal, err := wk.insert(ctx, sJournalInsert, issue, user, "", now)
		if err != nil {
			return err
		}
		wk.pending.journals++
		if oldStatus != int64(status) {
			if _, err := wk.exec(ctx, sDetailInsert, journal, "status_id", strconv.FormatInt(oldStatus, 10), strconv.Itoa(status)); err != nil {
				return err
			}
			wk.pending.details++
		}
		if newAssignee != int64(user) {
			if _, err := wk.exec(ctx, sDetailInsert, journal, "assigned_to_id", strconv.Itoa(user), strconv.FormatInt(newAssignee, 10)); err != nil {
				return err
			}
			wk.pending.details++
		}
		if status == statusResolved {
			wk.pending.resolved++
		}
		if p := is[issueCols["parent_id"]]; p != nil {
			if err := wk.recalculateParent(ctx, asInt(p), user, 0); err != nil {
				return err
			}
		}
		return wk.commit(ctx)
	})
}

// saveIssue runs an UPDATE of the issue row is as Rails' optimistic
// locking does: the statement's own values, then lock_version + 1, id and
// the lock_version read, which must still match (errStale otherwise).
func (wk *worker) saveIssue(ctx context.Context, is []any, s stmtID, values ...any) error {
	lv := asInt(is[issueCols["lock_version"]])
	n, err := wk.exec(ctx, s, append(values, lv+1, is[issueCols["id"]], lv)...)
	if err != nil {
		return err
	}
	if n == 0 {
		return errStale
	}
	return nil
}

// allows reports whether the workflow rows permit moving to status.
func allows(workflows [][]any, status int64) bool {
	for _, r := range workflows {
		if asInt(r[workflowNewStatus]) == status {
			return true
		}
	}
	return false
}

// --- statement execution, timed per statement ---

func (wk *worker) query(ctx context.Context, id stmtID, args ...any) ([][]any, error) {
	s := wk.st[id]
	start := time.Now()
	defer s.record(start)
	wk.out.Reads++
	rows, err := s.st.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		for i, v := range vals {
			if vals[i], err = normalize(v); err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", s.name, cols[i], err)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return out, nil
}

func (wk *worker) exec(ctx context.Context, id stmtID, args ...any) (int64, error) {
	s := wk.st[id]
	start := time.Now()
	defer s.record(start)
	wk.out.Writes++
	wk.pending.logicalBytes += logicalBytes(args)
	r, err := s.st.ExecContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.name, err)
	}
	return r.RowsAffected()
}

func (wk *worker) insert(ctx context.Context, id stmtID, args ...any) (int64, error) {
	s := wk.st[id]
	start := time.Now()
	defer s.record(start)
	wk.out.Writes++
	wk.pending.logicalBytes += logicalBytes(args)
	n, err := wk.d.InsertID(ctx, s.st, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.name, err)
	}
	return n, nil
}

// run executes a transaction statement, which is not prepared.
func (wk *worker) run(ctx context.Context, s *stmt) (sql.Result, error) {
	start := time.Now()
	defer s.record(start)
	wk.out.Other++
	r, err := wk.conn.ExecContext(ctx, s.text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return r, nil
}

// logicalBytes is what a write asked the server to store: strings at their
// length, integers at 4 bytes (the columns are INT), floats and times at 8,
// NULL at nothing.
func logicalBytes(args []any) int64 {
	var n int64
	for _, a := range args {
		switch v := a.(type) {
		case string:
			n += int64(len(v))
		case []byte:
			n += int64(len(v))
		case time.Time, float64:
			n += 8
		case nil:
		default:
			n += 4
		}
	}
	return n
}

// normalize turns what the three drivers scan into int64, float64, string,
// bool, time.Time or nil, so asInt and asFloat never meet a type they do
// not know: a column of another type fails the request instead of being
// read as 0.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64, float64, string, bool, time.Time:
		return v, nil
	case []byte:
		return string(x), nil
	case int32:
		return int64(x), nil
	case int:
		return int64(x), nil
	case float32:
		return float64(x), nil
	}
	return nil, fmt.Errorf("unexpected column type %T", v)
}

// asInt reads a normalized number; a numeric string (MySQL's text protocol,
// DECIMAL) is parsed.
func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			f, _ := strconv.ParseFloat(x, 64)
			return int64(f)
		}
		return n
	}
	return 0
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return float64(asInt(v))
}

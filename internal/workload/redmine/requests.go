package redmine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"shootout/internal/dialect"
)

// The REST requests of the two cycles, each sending what Redmine 5.0.4
// sends for it on the request's own connection (testdata/capture-*.sql),
// in the same transactions; the mail delivery itself, which Redmine runs in
// the background, is left out. docs/workloads.md lists them.

// issue is the part of an issues row a request acts on.
type issue struct {
	row                                                 []any
	id, project, tracker, status, author, assignee      int
	priority, parent, root, lft, rgt, lockVersion, done int
}

func issueOf(row []any) issue {
	c := func(name string) int { return int(asInt(row[issueCols[name]])) }
	return issue{row: row, id: c("id"), project: c("project_id"), tracker: c("tracker_id"), status: c("status_id"),
		author: c("author_id"), assignee: c("assigned_to_id"), priority: c("priority_id"), parent: c("parent_id"),
		root: c("root_id"), lft: c("lft"), rgt: c("rgt"), lockVersion: c("lock_version"), done: c("done_ratio")}
}

func (is issue) leaf() bool { return is.rgt-is.lft <= 1 }

// errStale is Rails' StaleObjectError: the UPDATE ... AND lock_version = ?
// matched no row because someone saved the issue since it was read.
var errStale = errors.New("stale lock_version")

// maxReloads bounds how often one request reloads a contended issue before
// the cell fails: far above what even four clients on one issue need.
const maxReloads = 50

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

// authenticate is how every API request starts: the settings cache, the
// API key's user.
func (wk *worker) authenticate(ctx context.Context, user int) error {
	wk.startRequest()
	if wk.d.Flavor == dialect.Postgres {
		// ActiveRecord checks a PostgreSQL connection it takes from the pool
		if _, err := wk.q(ctx, "connection.verify", ""); err != nil {
			return err
		}
	}
	if _, err := wk.q(ctx, "settings.check_cache", ""); err != nil {
		return err
	}
	rows, err := wk.q(ctx, "tokens.find_api_key", "", wk.wd.apiKey(user))
	if err != nil {
		return err
	}
	if len(rows) != 1 || asInt(rows[0][1]) != int64(user) {
		return fmt.Errorf("api key of user %d not found", user)
	}
	_, err = wk.q(ctx, "users.find_active", "", user)
	return err
}

// reads runs reads whose rows the request does not use.
func (wk *worker) reads(ctx context.Context, rs ...read) error {
	for _, r := range rs {
		if _, err := wk.q(ctx, r.name, r.query, r.args...); err != nil {
			return err
		}
	}
	return nil
}

type read struct {
	name, query string
	args        []any
}

func rd(name string, args ...any) read { return read{name: name, args: args} }

// membership is User#roles_for_project: the member row, then its roles; it
// returns the first role's id.
func (wk *worker) membership(ctx context.Context, user, project int) (int, error) {
	ms, err := wk.q(ctx, "members.of_user_in_project", "", user, project)
	if err != nil || len(ms) == 0 {
		return 0, err
	}
	roles, err := wk.q(ctx, "roles.of_member", "", ms[0][0])
	if err != nil || len(roles) == 0 {
		return 0, err
	}
	return int(asInt(roles[0][0])), nil
}

// userRoles is what User#allowed_to? loads for checks across projects:
// the user's roles anywhere, the built-in non-member role and group, the
// roles per project.
func (wk *worker) userRoles(ctx context.Context, user int) error {
	if err := wk.reads(ctx, rd("roles.of_user", user), rd("roles.builtin_non_member")); err != nil {
		return err
	}
	return nil
}

func (wk *worker) rolesByProject(ctx context.Context, user int) error {
	if err := wk.reads(ctx, rd("users.group_non_member"), rd("users.group_non_member_id")); err != nil {
		return err
	}
	rows, err := wk.q(ctx, "members.roles_by_project", "", user, groupNonMember)
	if err != nil {
		return err
	}
	seen := map[int64]bool{}
	for _, r := range rows {
		role := asInt(r[1])
		if !seen[role] {
			seen[role] = true
			if _, err := wk.q(ctx, "roles.find", "", role); err != nil {
				return err
			}
		}
	}
	return nil
}

// findIssue reads an issue; ok false when there is none.
func (wk *worker) findIssue(ctx context.Context, id int) (issue, bool, error) {
	rows, err := wk.q(ctx, "issues.find", "", id)
	if err != nil || len(rows) == 0 {
		return issue{}, false, err
	}
	return issueOf(rows[0]), true, nil
}

// checkAssignee is Redmine's validation of an assignee inside the save:
// the assignable roles, then the project's assignable users with them.
func (wk *worker) checkAssignee(ctx context.Context, project int) error {
	roles, err := wk.q(ctx, "roles.assignable", "")
	if err != nil {
		return err
	}
	ids := make([]string, len(roles))
	for i, r := range roles {
		ids[i] = strconv.FormatInt(asInt(r[0]), 10)
	}
	q := "SELECT DISTINCT " + columnsOf("users") + ` FROM users INNER JOIN members ON members.user_id = users.id
  INNER JOIN member_roles ON member_roles.member_id = members.id INNER JOIN roles ON roles.id = member_roles.role_id
  WHERE users.status = 1 AND users.type = 'User' AND members.project_id = ? AND roles.assignable = TRUE AND roles.id IN (` + strings.Join(ids, ", ") + `)
  ORDER BY users.type DESC, users.firstname, users.lastname, users.id`
	_, err = wk.q(ctx, "users.assignable", q, project)
	return err
}

// visibleIssue is Issue.visible scoped to one issue: "exists" only, or the
// row.
func (wk *worker) visibleIssue(ctx context.Context, name string, user, id int, exists bool) error {
	cols := columnsOf("issues")
	if exists {
		cols = "1 AS one"
	}
	q := "SELECT " + cols + " FROM issues INNER JOIN projects ON projects.id = issues.project_id WHERE " +
		visibleIssues(user, wk.wd.projectsOf(user)) + " AND issues.id = ? LIMIT 1"
	_, err := wk.q(ctx, name, q, id)
	return err
}

// --- POST /issues.json ---

// createIssue is the POST up to its COMMIT, retried after a stale
// lock_version; what Redmine reads after the COMMIT is returned as after,
// run (and retried) apart so that a failure there never creates the issue
// twice.
func (wk *worker) createIssue(ctx context.Context, author, project, assignee, parent int, subject, description string) (id int64, after func(context.Context) error, err error) {
	err = wk.retryStale(ctx, func() error {
		id, after, err = wk.postIssue(ctx, author, project, assignee, parent, subject, description)
		return err
	})
	return id, after, err
}

func (wk *worker) postIssue(ctx context.Context, author, project, assignee, parent int, subject, description string) (int64, func(context.Context) error, error) {
	role, par, err := wk.issueFormChecks(ctx, author, project, assignee, parent)
	if err != nil {
		return 0, nil, err
	}
	id, err := wk.insertIssue(ctx, author, project, assignee, parent, role, par, subject, description)
	if err != nil {
		return 0, nil, err
	}
	return id, func(ctx context.Context) error {
		return wk.notifyNewIssue(ctx, author, project, assignee, parent, par, id)
	}, nil
}

// newIssueTracker is the tracker of every issue the cycles create.
const newIssueTracker = 1

// issueFormChecks is what Redmine reads before a new issue's transaction:
// the author's roles and project, the tracker and statuses, the parent.
func (wk *worker) issueFormChecks(ctx context.Context, author, project, assignee, parent int) (role int, par issue, err error) {
	const tracker = newIssueTracker
	if err := wk.authenticate(ctx, author); err != nil {
		return 0, issue{}, err
	}
	if err := wk.userRoles(ctx, author); err != nil {
		return 0, issue{}, err
	}
	if err := wk.reads(ctx, rd("enumerations.default_priority"), rd("user_preferences.find", author)); err != nil {
		return 0, issue{}, err
	}
	if err := wk.rolesByProject(ctx, author); err != nil {
		return 0, issue{}, err
	}
	allowed := "SELECT 1 AS one FROM projects WHERE ((projects.status = 1 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name = 'issue_tracking')) AND " +
		fmt.Sprintf("((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (%d,%d))) OR projects.id IN (%s))) ",
			author, groupNonMember, inList(wk.wd.projectsOf(author))) +
		"AND (projects.id IN (SELECT DISTINCT project_id FROM projects_trackers)) AND projects.id = ? LIMIT 1"
	if err := wk.reads(ctx, read{"projects.allowed_to_add_issues", allowed, []any{project}}, rd("projects.find", project)); err != nil {
		return 0, issue{}, err
	}
	role, err = wk.membership(ctx, author, project)
	if err != nil {
		return 0, issue{}, err
	}
	if role == 0 {
		return 0, issue{}, fmt.Errorf("user %d is not a member of project %d", author, project)
	}
	trackers := "trackers.first_of_project"
	if parent != 0 {
		trackers = "trackers.of_project"
	}
	if err := wk.reads(ctx, rd(trackers, project), rd("issue_statuses.find", statusNew),
		read{"issue_statuses.allowed", allowedStatuses(0, role, tracker, true, assignee == author), nil},
		rd("enabled_modules.of_project", project), rd("workflows.permissions", tracker, statusNew, role)); err != nil {
		return 0, issue{}, err
	}
	if parent != 0 {
		if _, err := wk.q(ctx, "groups_users.of_user", "", author); err != nil {
			return 0, issue{}, err
		}
		if err := wk.visibleIssue(ctx, "issues.visible_exists", author, parent, true); err != nil {
			return 0, issue{}, err
		}
		var ok bool
		if par, ok, err = wk.findIssue(ctx, parent); err != nil {
			return 0, issue{}, err
		} else if !ok {
			return 0, issue{}, fmt.Errorf("parent issue %d not found", parent)
		}
	}
	return role, par, nil
}

// insertIssue is the new issue's transaction: the row, its nested set
// (under a parent: the subtask and the parent recalculated), committed.
func (wk *worker) insertIssue(ctx context.Context, author, project, assignee, parent, role int, par issue, subject, description string) (int64, error) {
	const tracker = newIssueTracker
	var err error
	if err := wk.begin(ctx); err != nil {
		return 0, err
	}
	if err := wk.reads(ctx, rd("users.find", assignee), rd("custom_fields.of_project", project), rd("custom_fields.of_tracker", tracker)); err != nil {
		return 0, err
	}
	if parent != 0 {
		if _, err := wk.q(ctx, "issue_relations.to", "", parent); err != nil {
			return 0, err
		}
	}
	if _, err := wk.q(ctx, "trackers.in_project", "", project, tracker); err != nil {
		return 0, err
	}
	if err := wk.checkAssignee(ctx, project); err != nil {
		return 0, err
	}
	now := time.Now().UTC().Truncate(time.Second)
	day := sqlDate(now)
	var id int64
	if parent == 0 {
		id, err = wk.ins(ctx, "issues.insert", `INSERT INTO issues (tracker_id, project_id, subject, description, status_id, assigned_to_id, priority_id,
  author_id, created_on, updated_on, start_date, lock_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
			tracker, project, subject, description, statusNew, assignee, priorityNormal, author, now, now, day)
		if err != nil {
			return 0, err
		}
		if _, err := wk.x(ctx, "issues.set_nested_set", "", id, id); err != nil {
			return 0, err
		}
	} else {
		if err := wk.reads(ctx, rd("issues.self_and_ancestors", par.root, par.lft, par.rgt), rd("issue_relations.from", parent)); err != nil {
			return 0, err
		}
		if id, err = wk.insertSubtask(ctx, par, project, tracker, subject, description, assignee, author, now, day); err != nil {
			return 0, err
		}
	}
	if err := wk.reads(ctx, rd("custom_values.of_issue", id), rd("issue_relations.from", id)); err != nil {
		return 0, err
	}
	if parent != 0 {
		child, ok, err := wk.nestedSetOf(ctx, id)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("new issue %d vanished", id)
		}
		if err := wk.reads(ctx, rd("issues.self_and_descendants", child[0], child[1], child[2]), rd("issue_relations.to", id)); err != nil {
			return 0, err
		}
		if err := wk.recalculateParent(ctx, parent, author, role, id); err != nil {
			return 0, err
		}
	}
	wk.pending.issuesCreated++
	if err := wk.commit(ctx); err != nil {
		return 0, err
	}
	return id, nil
}

// notifyNewIssue is the notification's reads after the commit, on the
// request's connection.
func (wk *worker) notifyNewIssue(ctx context.Context, author, project, assignee, parent int, par issue, id int64) error {
	if err := wk.projectRecipients(ctx, project); err != nil {
		return err
	}
	if _, err := wk.q(ctx, "enumerations.default_priority", ""); err != nil {
		return err
	}
	if _, err := wk.membership(ctx, assignee, project); err != nil {
		return err
	}
	if _, err := wk.q(ctx, "users.watchers", "", id); err != nil {
		return err
	}
	if parent != 0 {
		// the parent's child_id journal is notified too
		if err := wk.reads(ctx, rd("users.find_active", author), rd("users.find", par.assignee), rd("enumerations.priority_find", par.priority)); err != nil {
			return err
		}
		if err := wk.notifyMembers(ctx, par.project, par.author, par.assignee); err != nil {
			return err
		}
		if err := wk.reads(ctx, rd("users.watchers", parent), rd("issues.find", parent)); err != nil {
			return err
		}
	}
	return nil
}

// projectRecipients: the project's active members and their users.
func (wk *worker) projectRecipients(ctx context.Context, project int) error {
	ms, err := wk.q(ctx, "members.of_project_active_users", "", project)
	if err != nil {
		return err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = strconv.FormatInt(asInt(m[1]), 10)
	}
	if len(ids) == 0 {
		return nil
	}
	_, err = wk.q(ctx, "users.in", sel("users", "WHERE users.id IN ("+strings.Join(ids, ", ")+")"))
	return err
}

// notifyMembers checks the author's and the assignee's roles in the
// project, as the notification's visibility check does.
func (wk *worker) notifyMembers(ctx context.Context, project int, users ...int) error {
	for _, u := range users {
		if u == 0 {
			continue
		}
		if _, err := wk.membership(ctx, u, project); err != nil {
			return err
		}
	}
	return nil
}

func (wk *worker) nestedSetOf(ctx context.Context, id any) ([]any, bool, error) {
	rows, err := wk.q(ctx, "issues.nested_set_of", "", id)
	if err != nil || len(rows) == 0 {
		return nil, false, err
	}
	return rows[0], true, nil
}

// insertSubtask puts a new issue last under its parent in the nested set,
// as Redmine's IssueNestedSet does: lock the parent's whole tree, read the
// parent and the right edge of its children again under the lock, open a
// gap, insert the issue into it.
func (wk *worker) insertSubtask(ctx context.Context, par issue, project, tracker int, subject, description string, assignee, author int, now time.Time, day string) (int64, error) {
	lock := "SELECT issues.id FROM issues WHERE (root_id IN (SELECT root_id FROM issues WHERE id IN (?))) ORDER BY issues.id ASC" + wk.d.ForUpdate()
	if _, err := wk.q(ctx, "issues.lock_tree", lock, par.id); err != nil {
		return 0, err
	}
	ns, ok, err := wk.nestedSetOf(ctx, par.id)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("parent issue %d vanished", par.id)
	}
	root, rgt := asInt(ns[0]), asInt(ns[2])
	if _, err := wk.q(ctx, "issues.children_max_rgt", "", root, par.id); err != nil {
		return 0, err
	}
	if _, err := wk.x(ctx, "issues.shift_nested_set", "", rgt, rgt, root, rgt, rgt); err != nil {
		return 0, err
	}
	return wk.ins(ctx, "issues.insert_subtask", `INSERT INTO issues (tracker_id, project_id, subject, description, status_id, assigned_to_id, priority_id,
  author_id, created_on, updated_on, start_date, parent_id, root_id, lft, rgt, lock_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
		tracker, project, subject, description, statusNew, assignee, priorityNormal, author, now, now, day, par.id, root, rgt, rgt+1)
}

// recalculateParent derives a parent's priority, dates and done ratio
// from its children, as Issue#recalculate_attributes_for does with the
// parent_issue_* settings at "derived": four reads by parent_id (the
// search that has no index in the redmine3.3 schema), the children's
// statuses and total estimated hours, the parent's custom fields; then the
// parent saved if any of it changed, and always for a new subtask
// (child != 0), with a journal recording the child.
func (wk *worker) recalculateParent(ctx context.Context, parent, user, role int, child int64) error {
	wk.parentSearches++
	par, ok, err := wk.findIssue(ctx, parent)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("parent issue %d vanished", parent)
	}
	priority, done, err := wk.derivedFromChildren(ctx, parent, par)
	if err != nil {
		return err
	}
	if err := wk.reads(ctx, rd("projects.find", par.project), rd("trackers.find", par.tracker), rd("custom_fields.of_project", par.project),
		rd("custom_fields.of_tracker", par.tracker), rd("custom_values.of_issue", parent)); err != nil {
		return err
	}
	if child == 0 && priority == par.priority && done == par.done {
		return nil // Rails saves nothing when nothing changed
	}
	if err := wk.reads(ctx, rd("users.group_non_member"), rd("groups_users.of_user", user)); err != nil {
		return err
	}
	if err := wk.visibleIssue(ctx, "issues.visible", user, parent, false); err != nil {
		return err
	}
	if _, err := wk.q(ctx, "workflows.permissions", "", par.tracker, par.status, role); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	var set []string
	var args []any
	if priority != par.priority {
		set, args = append(set, "priority_id = ?"), append(args, priority)
	}
	if done != par.done {
		set, args = append(set, "done_ratio = ?"), append(args, done)
	}
	if err := wk.saveIssue(ctx, "issues.update_parent_derived", par, set, args, now); err != nil {
		return err
	}
	if err := wk.reads(ctx, rd("custom_values.of_issue", parent), rd("enabled_modules.of_project", par.project)); err != nil {
		return err
	}
	if child == 0 {
		return nil
	}
	journal, err := wk.ins(ctx, "journals.insert", "", parent, user, "", now)
	if err != nil {
		return err
	}
	if _, err := wk.x(ctx, "journal_details.insert", "", journal, "child_id", nil, strconv.FormatInt(child, 10)); err != nil {
		return err
	}
	wk.pending.journals++
	wk.pending.details++
	return nil
}

// derivedFromChildren is what a parent takes from its children: the
// highest open priority and the done ratio, read as Redmine reads them.
func (wk *worker) derivedFromChildren(ctx context.Context, parent int, par issue) (priority, done int, err error) {
	top, err := wk.q(ctx, "issues.children_max_priority", "", parent)
	if err != nil {
		return 0, 0, err
	}
	priority = priorityNormal // all children closed: the default priority
	if len(top) > 0 && top[0][0] != nil {
		priority = int(asInt(top[0][0])) // priorities' ids are their positions
		if _, err := wk.q(ctx, "enumerations.priority_at", "", priority); err != nil {
			return 0, 0, err
		}
	}
	if err := wk.reads(ctx, rd("issues.children_min_start", parent), rd("issues.children_max_due", parent)); err != nil {
		return 0, 0, err
	}
	rows, err := wk.q(ctx, "issues.children", "", parent)
	if err != nil {
		return 0, 0, err
	}
	children := make([]issue, len(rows))
	for i, r := range rows {
		children[i] = issueOf(r)
	}
	done = par.done
	if len(children) > 0 {
		if done, err = wk.derivedDoneRatio(ctx, children); err != nil {
			return 0, 0, err
		}
	}
	return priority, done, nil
}

// derivedDoneRatio weighs children by their total estimated hours (the
// average of those that have some, 1 if none has), closed ones at 100%.
// A child with children of its own sums its subtree's hours in a read; a
// leaf's are its own. Each child's status is read for "closed?".
func (wk *worker) derivedDoneRatio(ctx context.Context, children []issue) (int, error) {
	estimates := make([]float64, len(children))
	var sum float64
	var with int
	for i, c := range children {
		if _, err := wk.q(ctx, "issue_statuses.find", "", c.status); err != nil {
			return 0, err
		}
		e := asFloat(c.row[issueCols["estimated_hours"]])
		if !c.leaf() {
			rows, err := wk.q(ctx, "issues.total_estimated_hours", "SELECT SUM(issues.estimated_hours) FROM issues WHERE issues.root_id = ? AND issues.lft >= ? AND issues.rgt <= ?", c.root, c.lft, c.rgt)
			if err != nil {
				return 0, err
			}
			e = 0
			if len(rows) > 0 {
				e = asFloat(rows[0][0])
			}
		}
		if e > 0 {
			estimates[i] = e
			sum += e
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
		ratio := float64(c.done)
		if isClosed(c.status) {
			ratio = 100
		}
		total += e * ratio
	}
	return int(total / (average * float64(len(children)))), nil
}

// saveIssue runs an UPDATE of the issue as Rails' optimistic locking
// does: the changed columns, updated_on, lock_version + 1, guarded by the
// lock_version read (errStale when someone saved it since).
func (wk *worker) saveIssue(ctx context.Context, name string, is issue, set []string, args []any, now time.Time) error {
	set = append(set, "updated_on = ?", "lock_version = ?")
	args = append(args, now, is.lockVersion+1, is.id, is.lockVersion)
	n, err := wk.x(ctx, name, "UPDATE issues SET "+strings.Join(set, ", ")+" WHERE issues.id = ? AND issues.lock_version = ?", args...)
	if err != nil {
		return err
	}
	if n == 0 {
		return errStale
	}
	return nil
}

// --- PUT /issues/N.json ---

// putChange is what a PUT asks: notes, or a status with the assignee to hand
// the issue to (0: keep).
type putChange struct {
	notes    string
	status   int
	assignee int
	// wantAssignee, when set, is the user the issue must still be
	// assigned to (process10's own list), or the request is skipped
	wantAssignee int
}

func (wk *worker) comment(ctx context.Context, user int, id int64, notes string) (after func(context.Context) error, err error) {
	err = wk.retryStale(ctx, func() error {
		after, err = wk.putIssue(ctx, user, int(id), putChange{notes: notes})
		return err
	})
	return after, err
}

// changeStatus moves an issue to status, reassigned to its author when
// toAuthor; an issue no longer assigned to user, or closed, was taken on
// by someone else since the list was read.
func (wk *worker) changeStatus(ctx context.Context, user int, id int64, status int, toAuthor bool) (after func(context.Context) error, err error) {
	c := putChange{status: status, wantAssignee: user}
	if toAuthor {
		c.assignee = -1
	}
	err = wk.retryStale(ctx, func() error {
		after, err = wk.putIssue(ctx, user, int(id), c)
		return err
	})
	return after, err
}

// putIssue is IssuesController#update up to its COMMIT; after is the rest
// (nil when nothing was saved).
func (wk *worker) putIssue(ctx context.Context, user, id int, c putChange) (after func(context.Context) error, err error) {
	is, role, err := wk.issueEditChecks(ctx, user, id)
	if err != nil {
		return nil, err
	}
	if c.notes == "" {
		if skip, err := wk.resolveChange(ctx, is, role, &c); skip || err != nil {
			return nil, err
		}
	}
	if err := wk.saveChange(ctx, user, id, is, role, c); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return wk.notifyChange(ctx, user, id, is) }, nil
}

// issueEditChecks is what Redmine reads before a change to issue id:
// the issue, the user's role in its project, the statuses allowed, and
// whether it may be closed.
func (wk *worker) issueEditChecks(ctx context.Context, user, id int) (is issue, role int, err error) {
	var ok bool
	if err := wk.authenticate(ctx, user); err != nil {
		return issue{}, 0, err
	}
	is, ok, err = wk.findIssue(ctx, id)
	if err != nil {
		return issue{}, 0, err
	}
	if !ok {
		return issue{}, 0, fmt.Errorf("issue %d not found", id)
	}
	if err := wk.reads(ctx, rd("projects.find", is.project), rd("enabled_modules.of_project", is.project)); err != nil {
		return issue{}, 0, err
	}
	role, err = wk.membership(ctx, user, is.project)
	if err != nil {
		return issue{}, 0, err
	}
	if role == 0 {
		return issue{}, 0, fmt.Errorf("user %d is not a member of project %d", user, is.project)
	}
	if err := wk.reads(ctx, rd("enumerations.default_activity"), rd("trackers.find", is.tracker), rd("custom_fields.of_project", is.project),
		rd("custom_fields.of_tracker", is.tracker), rd("issue_statuses.find", is.status)); err != nil {
		return issue{}, 0, err
	}
	if is.assignee != user {
		if _, err := wk.q(ctx, "groups_users.of_user", "", user); err != nil {
			return issue{}, 0, err
		}
	}
	if err := wk.reads(ctx, rd("users.find_active", is.author),
		read{"issue_statuses.allowed", allowedStatuses(is.status, role, is.tracker, is.author == user, is.assignee == user), nil}); err != nil {
		return issue{}, 0, err
	}
	// Issue#closable?: a parent with an open subtask cannot be closed, and
	// Redmine looks no further; any other issue (a leaf, root or subtask)
	// has its blocking relations read (blocked?)
	openSubtask := false
	if !is.leaf() {
		rows, err := wk.q(ctx, "issues.open_descendant", "", is.root, is.lft, is.rgt)
		if err != nil {
			return issue{}, 0, err
		}
		openSubtask = len(rows) > 0
	}
	if !openSubtask {
		if _, err := wk.q(ctx, "issue_relations.to", "", id); err != nil {
			return issue{}, 0, err
		}
	}
	if is.parent != 0 {
		if _, err := wk.q(ctx, "issues.closed_ancestor", "", is.root, is.lft, is.rgt); err != nil {
			return issue{}, 0, err
		}
	}
	if _, err := wk.q(ctx, "workflows.permissions", "", is.tracker, is.status, role); err != nil {
		return issue{}, 0, err
	}
	return is, role, nil
}

// resolveChange makes a change without notes concrete against the issue
// as it is now (-1: back to the author; the assignee it has: none), and
// says to skip it when someone else moved the issue on or nothing is left
// to change.
func (wk *worker) resolveChange(ctx context.Context, is issue, role int, c *putChange) (skip bool, err error) {
	if c.wantAssignee != 0 && (is.assignee != c.wantAssignee || isClosed(is.status)) {
		wk.taken++ // someone else moved it on since the list was read
		return true, nil
	}
	if c.assignee == -1 {
		c.assignee = is.author
	}
	if c.assignee == is.assignee {
		c.assignee = 0
	}
	if c.status == is.status && c.assignee == 0 {
		wk.noops++
		return true, nil // nothing to change: Redmine writes no journal
	}
	if c.status != is.status {
		if err := wk.reads(ctx, rd("issue_statuses.find", c.status), rd("workflows.permissions", is.tracker, c.status, role)); err != nil {
			return false, err
		}
	}
	return false, nil
}

// saveChange is the change's transaction: the issue saved, its parent
// recalculated, the journal and its details, committed.
func (wk *worker) saveChange(ctx context.Context, user, id int, is issue, role int, c putChange) error {
	if err := wk.begin(ctx); err != nil {
		return err
	}
	if c.assignee != 0 {
		if err := wk.checkAssignee(ctx, is.project); err != nil {
			return err
		}
		if err := wk.reads(ctx, rd("users.find", is.assignee), rd("users.find", c.assignee)); err != nil {
			return err
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	var set []string
	var args []any
	name := "issues.update_touch"
	if c.status != 0 && c.status != is.status {
		set, args, name = append(set, "status_id = ?"), append(args, c.status), "issues.update_status"
	}
	if c.assignee != 0 {
		set, args = append(set, "assigned_to_id = ?"), append(args, c.assignee)
	}
	if err := wk.saveIssue(ctx, name, is, set, args, now); err != nil {
		return err
	}
	if _, err := wk.q(ctx, "custom_values.of_issue", "", id); err != nil {
		return err
	}
	if is.parent != 0 {
		if err := wk.recalculateParent(ctx, is.parent, user, role, 0); err != nil {
			return err
		}
	}
	journal, err := wk.ins(ctx, "journals.insert", "", id, user, c.notes, now)
	if err != nil {
		return err
	}
	wk.pending.journals++
	if c.notes != "" {
		wk.pending.comments++
	}
	if c.status != 0 && c.status != is.status {
		if _, err := wk.x(ctx, "journal_details.insert", "", journal, "status_id", strconv.Itoa(is.status), strconv.Itoa(c.status)); err != nil {
			return err
		}
		wk.pending.details++
		if c.status == statusResolved {
			wk.pending.resolved++
		}
	}
	if c.assignee != 0 {
		if _, err := wk.x(ctx, "journal_details.insert", "", journal, "assigned_to_id", strconv.Itoa(is.assignee), strconv.Itoa(c.assignee)); err != nil {
			return err
		}
		wk.pending.details++
	}
	return wk.commit(ctx)
}

// notifyChange is the notification's reads after the commit: the
// assignee before the change, the project's members, the author's and
// the assignee's roles, watchers.
func (wk *worker) notifyChange(ctx context.Context, user, id int, is issue) error {
	if is.assignee != 0 {
		if _, err := wk.q(ctx, "users.find", "", is.assignee); err != nil {
			return err
		}
	}
	if err := wk.projectRecipients(ctx, is.project); err != nil {
		return err
	}
	if err := wk.reads(ctx, rd("enumerations.priority_find", is.priority), rd("enumerations.default_priority")); err != nil {
		return err
	}
	if err := wk.notifyMembers(ctx, is.project, is.author, is.assignee); err != nil {
		return err
	}
	if _, err := wk.q(ctx, "users.watchers", "", id); err != nil {
		return err
	}
	return wk.projectUsed(ctx, user, is.project)
}

// recentProjects is how many projects Redmine keeps in a user's recently
// used list (the preference's default).
const recentProjects = 3

const recentKey = ":recently_used_project_ids: "

// projectUsed is ApplicationController#record_project_usage, after every
// action on a project's issue: the user's preferences, and when the
// project is not already first in their recently used list, the list
// saved in a transaction of its own.
func (wk *worker) projectUsed(ctx context.Context, user, project int) error {
	rows, err := wk.q(ctx, "user_preferences.find", "", user)
	if err != nil || len(rows) == 0 {
		return err
	}
	others, _ := rows[0][prefOthers].(string)
	var recent []string
	var kept []string
	for _, line := range strings.Split(strings.TrimRight(others, "\n"), "\n") {
		if v, ok := strings.CutPrefix(line, recentKey); ok {
			for _, id := range strings.Split(strings.Trim(v, "'\""), ",") {
				if id != "" {
					recent = append(recent, id)
				}
			}
			continue
		}
		kept = append(kept, line)
	}
	p := strconv.Itoa(project)
	if len(recent) > 0 && recent[0] == p {
		return nil
	}
	list := []string{p}
	for _, id := range recent {
		if id != p && len(list) < recentProjects {
			list = append(list, id)
		}
	}
	kept = append(kept, recentKey+"'"+strings.Join(list, ",")+"'")
	if err := wk.begin(ctx); err != nil {
		return err
	}
	if _, err := wk.x(ctx, "user_preferences.update", "", strings.Join(kept, "\n")+"\n", rows[0][0]); err != nil {
		return err
	}
	wk.prefUpdates++
	return wk.commit(ctx)
}

// --- GET /issues.json?assigned_to_id=me&status_id=1 ---

// listAssigned is the user's New issues assigned to them, newest first, a
// page of ten, as the API renders them: the permission reads of a query
// across projects, the count for the pager, the page with its statuses and
// projects, the preloads, then per issue what the view reads.
func (wk *worker) listAssigned(ctx context.Context, user int) ([]int64, error) {
	if err := wk.authenticate(ctx, user); err != nil {
		return nil, err
	}
	if err := wk.userRoles(ctx, user); err != nil {
		return nil, err
	}
	if err := wk.rolesByProject(ctx, user); err != nil {
		return nil, err
	}
	projects := wk.wd.projectsOf(user)
	trackers := "SELECT DISTINCT " + columnsOf("trackers") + " FROM trackers INNER JOIN projects_trackers ON projects_trackers.tracker_id = trackers.id " +
		"INNER JOIN projects ON projects.id = projects_trackers.project_id WHERE " + visibleProjects(user, projects, "issue_tracking", "") + " ORDER BY trackers.position ASC"
	if err := wk.reads(ctx, read{"trackers.visible", trackers, nil}, rd("enumerations.priorities"), rd("members.any_of_user", user),
		rd("custom_fields.visible_filters", user), rd("custom_fields.visible_any_filters", user), rd("groups_users.of_user", user),
		rd("custom_fields.visible", user), rd("user_preferences.find", user)); err != nil {
		return nil, err
	}
	where := " FROM issues INNER JOIN projects ON projects.id = issues.project_id INNER JOIN issue_statuses ON issue_statuses.id = issues.status_id WHERE " +
		visibleIssues(user, projects) + fmt.Sprintf(" AND ((issues.status_id IN ('%d')) AND (issues.assigned_to_id IN ('%d')))", statusNew, user)
	if _, err := wk.q(ctx, "issues.count_assigned_to_me", "SELECT COUNT(*)"+where); err != nil {
		return nil, err
	}
	rows, err := wk.q(ctx, "issues.list_assigned_to_me", "SELECT "+eagerIssueColumns()+where+" ORDER BY issues.id DESC LIMIT 10 OFFSET 0")
	if err != nil {
		return nil, err
	}
	list := make([]issue, len(rows))
	var ids, priorities, authors []int
	for i, r := range rows {
		list[i] = issueOf(r)
		ids = append(ids, list[i].id)
		priorities = appendNew(priorities, list[i].priority)
		authors = appendNew(authors, list[i].author)
	}
	if len(list) > 0 {
		spent := "SELECT SUM(time_entries.hours) AS sum_hours, time_entries.issue_id AS time_entries_issue_id FROM time_entries INNER JOIN projects ON projects.id = time_entries.project_id WHERE " +
			visibleProjects(user, projects, "time_tracking", "") + " AND time_entries.issue_id IN (" + inList(ids) + ") GROUP BY time_entries.issue_id"
		total := "SELECT SUM(time_entries.hours) AS sum_hours, parent.id AS parent_id FROM time_entries INNER JOIN projects ON projects.id = time_entries.project_id " +
			"INNER JOIN issues ON issues.id = time_entries.issue_id JOIN issues parent ON parent.root_id = issues.root_id AND parent.lft <= issues.lft AND parent.rgt >= issues.rgt WHERE " +
			visibleProjects(user, projects, "time_tracking", "") + " AND (parent.id IN (" + inList(ids) + ")) GROUP BY parent.id"
		if err := wk.reads(ctx,
			read{"enumerations.priorities_of_list", sel("enumerations", "WHERE enumerations.type = 'IssuePriority' AND "+idsCondition("enumerations.id", priorities)+" ORDER BY enumerations.position ASC"), nil},
			read{"users.authors_of_list", sel("users", "WHERE users.type IN ('User', 'AnonymousUser') AND "+idsCondition("users.id", authors)), nil},
			read{"time_entries.spent_hours", spent, nil}, read{"time_entries.total_spent_hours", total, nil}); err != nil {
			return nil, err
		}
	}
	for _, is := range list {
		rs := []read{rd("trackers.find", is.tracker)}
		if is.assignee != 0 {
			rs = append(rs, rd("users.find", is.assignee))
		}
		if is.parent != 0 {
			rs = append(rs, rd("issues.find", is.parent))
		}
		rs = append(rs, rd("enabled_modules.of_project", is.project), rd("custom_fields.of_project", is.project), rd("custom_fields.of_tracker", is.tracker))
		if !is.leaf() {
			rs = append(rs, read{"issues.total_estimated_hours_visible", "SELECT SUM(issues.estimated_hours) FROM issues INNER JOIN projects ON projects.id = issues.project_id " +
				"WHERE issues.root_id = ? AND (issues.lft >= ? AND issues.rgt <= ?) AND " + visibleIssues(user, projects), []any{is.root, is.lft, is.rgt}})
		}
		if err := wk.reads(ctx, rs...); err != nil {
			return nil, err
		}
	}
	out := make([]int64, len(list))
	for i, is := range list {
		out[i] = int64(is.id)
	}
	return out, nil
}

func appendNew(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

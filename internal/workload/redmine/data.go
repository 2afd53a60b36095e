package redmine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"shootout/internal/workload"
)

// shape is one of the seed's datasets.
type shape struct {
	users, l1, l2, l3, issues int
}

func (s shape) projects() int { return s.l1 + s.l2 + s.l3 }

// loadRows is the rows of every table the load writes (see fixedTables).
func (s shape) loadRows() int64 {
	p := s.projects()
	fixed := 6 + (s.users + 4) + 3*s.users + p + len(modules)*p + 5 + 2*membersPerProject*p + 3 + 3*p + 6 + 180 + 7
	return int64(fixed + s.issues*(2+commentsPerIssue))
}

// shapes are the seed's small, large and giant sets; every project has
// membersPerProject members and every issue commentsPerIssue comments.
var shapes = map[string]shape{
	"small": {users: 30, l1: 3, l2: 10, l3: 0, issues: 1000},
	"large": {users: 1000, l1: 10, l2: 100, l3: 10, issues: 10000},
	"giant": {users: 10000, l1: 100, l2: 1000, l3: 100, issues: 100000},
}

const (
	membersPerProject = 10
	commentsPerIssue  = 10
	// firstUserID: Redmine's default data takes ids 1-4 (admin, the
	// anonymous user and the two built-in groups).
	firstUserID = 5
)

// Redmine's default data (rake redmine:load_default_data), by id.
const (
	statusNew, statusInProgress, statusResolved, statusFeedback, statusClosed, statusRejected = 1, 2, 3, 4, 5, 6
	roleNonMember, roleAnonymous, roleManager, roleDeveloper, roleReporter                    = 1, 2, 3, 4, 5
	priorityNormal                                                                            = 2
)

var statusNames = []string{"", "New", "In Progress", "Resolved", "Feedback", "Closed", "Rejected"}

func isClosed(status int) bool { return status == statusClosed || status == statusRejected }

// epoch is when the generated tracker's history starts: a fixed instant, so
// every target and every run gets the same rows.
var epoch = time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)

// history is how long the generated tracker has been in use.
const history = 2 * 365 * 24 * time.Hour

// sqlDate is a DATE column's value as every server and Rails read it: a
// time would reach SQLite as a timestamp text, which Redmine refuses as a
// start date.
func sqlDate(t time.Time) string { return t.UTC().Format("2006-01-02") }

// issueRow is the part of an issue decided in one sequential pass (projects,
// people, status, parent and nested set); text is drawn later per batch.
type issueRow struct {
	project, author, assignee int // assignee 0: nobody
	tracker, status, priority int
	parent, root, lft, rgt    int
	doneRatio                 int
	estimated                 float64
	due                       bool
}

// world is the whole generated dataset except for text.
type world struct {
	shape
	seed      int64
	members   [][]int // per project (0-based) the user ids of its members
	parent    []int   // per project, the parent's index or -1
	lft, rgt  []int
	issues    []issueRow // issues[i] is issue id i+1
	roots     [][]int    // per project, the ids of issues without a parent
	openRoots [][]int    // per project, those of them that are open
	subtasks  float64
	pool      textPool
	tokenSalt uint64
	// userProjects: per user (id - firstUserID), the projects they are a
	// member of, as Redmine's visibility clauses list them
	userProjects [][]int
}

// projectsOf is the ids of the projects user is a member of, ascending.
func (w *world) projectsOf(user int) []int { return w.userProjects[user-firstUserID] }

func userID(i int) int { return firstUserID + i }

func newWorld(s shape, seed int64, subtasks float64) *world {
	w := &world{shape: s, seed: seed, subtasks: subtasks, tokenSalt: uint64(seed)*0x9e3779b97f4a7c15 + 1}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	// members: project p takes ten consecutive users of one shuffled order,
	// so every user is in about the same number of projects
	perm := rng.Perm(s.users)
	n := s.projects()
	w.members = make([][]int, n)
	for p := 0; p < n; p++ {
		for m := 0; m < membersPerProject; m++ {
			w.members[p] = append(w.members[p], userID(perm[(p*membersPerProject+m)%s.users]))
		}
	}
	w.parent = make([]int, n)
	for p := range w.parent {
		switch {
		case p < s.l1:
			w.parent[p] = -1
		case p < s.l1+s.l2:
			w.parent[p] = (p - s.l1) % s.l1
		default:
			w.parent[p] = s.l1 + (p-s.l1-s.l2)%s.l2
		}
	}
	w.userProjects = make([][]int, s.users)
	for p, ms := range w.members {
		for _, u := range ms {
			w.userProjects[u-firstUserID] = append(w.userProjects[u-firstUserID], p+1)
		}
	}
	w.nestProjects()
	w.makeIssues(rng)
	w.pool = newTextPool(seed, 1<<20)
	return w
}

// nestProjects numbers the project forest as Redmine's nested set does:
// depth first, children in id order, one counter across all roots.
func (w *world) nestProjects() {
	n := len(w.parent)
	children := make([][]int, n)
	var roots []int
	for p, par := range w.parent {
		if par < 0 {
			roots = append(roots, p)
		} else {
			children[par] = append(children[par], p)
		}
	}
	w.lft, w.rgt = make([]int, n), make([]int, n)
	next := 1
	var walk func(p int)
	walk = func(p int) {
		w.lft[p] = next
		next++
		for _, c := range children[p] {
			walk(c)
		}
		w.rgt[p] = next
		next++
	}
	for _, r := range roots {
		walk(r)
	}
}

func pick(rng *rand.Rand, weights []int) int {
	total := 0
	for _, x := range weights {
		total += x
	}
	r := rng.IntN(total)
	for i, x := range weights {
		if r < x {
			return i
		}
		r -= x
	}
	return len(weights) - 1
}

// makeIssues draws who, where and what state for every issue, as a
// tracker in use looks: older issues mostly closed, newer ones open, most
// assigned, some of them subtasks of an earlier issue of the same project.
func (w *world) makeIssues(rng *rand.Rand) {
	w.issues = make([]issueRow, w.shape.issues)
	roots := make([][]int, len(w.members)) // per project, root issue ids so far
	children := map[int][]int{}
	for i := range w.issues {
		id := i + 1
		p := rng.IntN(len(w.members))
		ms := w.members[p]
		a := rng.IntN(len(ms))
		is := issueRow{project: p + 1, author: ms[a]}
		if rng.IntN(10) > 0 {
			is.assignee = ms[(a+1+rng.IntN(len(ms)-1))%len(ms)]
		}
		is.tracker = 1 + pick(rng, []int{50, 35, 15})
		is.priority = 1 + pick(rng, []int{15, 60, 17, 6, 2})
		age := 1 - float64(i)/float64(len(w.issues))
		if rng.Float64() < 0.15+0.6*age {
			is.status = []int{statusClosed, statusRejected}[pick(rng, []int{85, 15})]
			is.doneRatio = 100
		} else {
			is.status = []int{statusNew, statusInProgress, statusResolved, statusFeedback}[pick(rng, []int{45, 25, 20, 10})]
			switch is.status {
			case statusInProgress:
				is.doneRatio = 10 * rng.IntN(9)
			case statusResolved:
				is.doneRatio = 90
			}
		}
		if rng.IntN(10) < 3 {
			is.estimated = float64(1 + rng.IntN(40))
		}
		is.due = rng.IntN(5) == 0
		if rs := roots[p]; len(rs) > 0 && rng.Float64() < w.subtasks {
			// a subtask of one of the project's recent issues
			recent := rs
			if len(recent) > 50 {
				recent = recent[len(recent)-50:]
			}
			is.parent = recent[rng.IntN(len(recent))]
			children[is.parent] = append(children[is.parent], id)
		} else {
			roots[p] = append(roots[p], id)
		}
		w.issues[i] = is
	}
	w.roots = roots
	// Redmine lets no issue stay open under a closed parent (it cannot be
	// closed with open subtasks, and a subtask of a closed one may only
	// move to a closed status): a drawn state that breaks the rule is
	// closed, and new subtasks go under open roots only
	w.openRoots = make([][]int, len(roots))
	for p, rs := range roots {
		for _, id := range rs {
			if !isClosed(w.issues[id-1].status) {
				w.openRoots[p] = append(w.openRoots[p], id)
			}
		}
	}
	for i := range w.issues {
		is := &w.issues[i]
		if is.parent != 0 && isClosed(w.issues[is.parent-1].status) && !isClosed(is.status) {
			is.status, is.doneRatio = statusClosed, 100
		}
	}
	// one level of subtasks: a root spans 1 .. 2*children+2, its children
	// take 2,3 then 4,5 ... in id order
	for i := range w.issues {
		is := &w.issues[i]
		if is.parent != 0 {
			continue
		}
		id := i + 1
		is.root, is.lft, is.rgt = id, 1, 2*len(children[id])+2
		for k, c := range children[id] {
			ch := &w.issues[c-1]
			ch.root, ch.lft, ch.rgt = id, 2+2*k, 3+2*k
		}
	}
}

func (w *world) issueCreated(id int) time.Time {
	return epoch.Add(time.Duration(float64(history) * float64(id-1) / float64(len(w.issues)))).Truncate(time.Second)
}

// commentTime spaces an issue's comments a few hours apart.
func (w *world) commentTime(id, c int) time.Time {
	return w.issueCreated(id).Add(time.Duration(c+1) * 3 * time.Hour)
}

// apiKey is user u's REST API key: 40 hex digits, like Redmine's.
func (w *world) apiKey(user int) string {
	x := uint64(user)*0xbf58476d1ce4e5b9 ^ w.tokenSalt
	var b strings.Builder
	for b.Len() < 40 {
		x ^= x >> 31
		x *= 0x94d049bb133111eb
		x ^= x >> 29
		fmt.Fprintf(&b, "%016x", x)
	}
	return b.String()[:40]
}

// words are the vocabulary of generated text: an issue tracker's words, so
// text compresses as real text does (which matters to MyRocks' space).
var words = strings.Fields(`the a to of and in is it for on that with this be not when after
error page user issue fix update version server database login report crash log
should does cannot fails shows wrong missing slow new old list button field form
email project settings admin file upload download export import search filter
query table index timeout request response api client release build test tests
please see attached screenshot steps reproduce expected actual result works again
now also still only some all every time date value status assigned resolved
closed feedback priority high low normal urgent bug feature support task change
line message warning configuration cache memory disk network connection session`)

// textPool is a long run of generated words that texts are cut from: one
// generator pass for the whole load instead of one per text.
type textPool string

func newTextPool(seed int64, size int) textPool {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7e47))
	var b strings.Builder
	b.Grow(size + 16)
	sentence := 0
	for b.Len() < size {
		wd := words[rng.IntN(len(words))]
		if sentence == 0 {
			wd = strings.ToUpper(wd[:1]) + wd[1:]
		}
		b.WriteString(wd)
		sentence++
		if sentence > 6 && rng.IntN(8) == 0 {
			b.WriteString(". ")
			sentence = 0
		} else {
			b.WriteByte(' ')
		}
	}
	return textPool(b.String())
}

// cut returns about n bytes of the pool starting at a word.
func (t textPool) cut(rng *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	if n > len(t)/2 {
		n = len(t) / 2
	}
	start := rng.IntN(len(t) - n)
	for start > 0 && t[start-1] != ' ' {
		start--
	}
	return strings.TrimSpace(string(t[start : start+n]))
}

// Text lengths: subjects of a line, descriptions and comments with the
// long tail real ones have.
func subjectLen(rng *rand.Rand) int { return 20 + rng.IntN(60) }

func descriptionLen(rng *rand.Rand) int {
	if rng.IntN(10) == 0 {
		return 0
	}
	return clamp(60+int(rng.ExpFloat64()*350), 4000)
}

func commentLen(rng *rand.Rand) int { return clamp(20+int(rng.ExpFloat64()*180), 2000) }

func clamp(n, hi int) int {
	if n > hi {
		return hi
	}
	return n
}

// batch sizes: rows per bulk statement for the two large tables.
const (
	issuesPerBatch   = 5000
	journalsPerBatch = 50000
)

// batches lists the dataset as LoadOrdered batches: the small tables, then
// issues, their watchers, then journals, each in primary-key order.
func (w *world) batches() []func() workload.Batch {
	pool := w.pool
	var out []func() workload.Batch
	fixed := func(b workload.Batch) { out = append(out, func() workload.Batch { return b }) }
	for _, b := range w.fixedTables() {
		fixed(b)
	}
	n := len(w.issues)
	for first := 1; first <= n; first += issuesPerBatch {
		first := first
		last := min(first+issuesPerBatch-1, n)
		out = append(out, func() workload.Batch { return w.issueBatch(pool, first, last) })
	}
	for first := 1; first <= n; first += issuesPerBatch * 4 {
		first := first
		last := min(first+issuesPerBatch*4-1, n)
		out = append(out, func() workload.Batch { return w.watcherBatch(first, last) })
	}
	perBatch := journalsPerBatch / commentsPerIssue
	for first := 1; first <= n; first += perBatch {
		first := first
		last := min(first+perBatch-1, n)
		out = append(out, func() workload.Batch { return w.journalBatch(pool, first, last) })
	}
	return out
}

func (w *world) issueBatch(pool textPool, first, last int) workload.Batch {
	rng := rand.New(rand.NewPCG(uint64(w.seed), uint64(first)<<1))
	b := workload.Batch{Table: "issues", Cols: []string{"id", "tracker_id", "project_id", "subject", "description", "due_date",
		"status_id", "assigned_to_id", "priority_id", "author_id", "lock_version", "created_on", "updated_on", "start_date",
		"done_ratio", "estimated_hours", "parent_id", "root_id", "lft", "rgt", "is_private", "closed_on"}}
	for id := first; id <= last; id++ {
		is := w.issues[id-1]
		created := w.issueCreated(id)
		updated := w.commentTime(id, commentsPerIssue-1)
		var due, assignee, estimated, parent, closed any
		if is.due {
			due = sqlDate(created.AddDate(0, 0, 14))
		}
		if is.assignee != 0 {
			assignee = is.assignee
		}
		if is.estimated != 0 {
			estimated = is.estimated
		}
		if is.parent != 0 {
			parent = is.parent
		}
		if isClosed(is.status) {
			closed = updated
		}
		b.Rows = append(b.Rows, []any{id, is.tracker, is.project, pool.cut(rng, subjectLen(rng)), pool.cut(rng, descriptionLen(rng)), due,
			is.status, assignee, is.priority, is.author, commentsPerIssue, created, updated, sqlDate(created),
			is.doneRatio, estimated, parent, is.root, is.lft, is.rgt, false, closed})
	}
	return b
}

// watcherBatch: every author watches their issue, as Redmine's default
// auto-watch preference makes them.
func (w *world) watcherBatch(first, last int) workload.Batch {
	b := workload.Batch{Table: "watchers", Cols: []string{"id", "watchable_type", "watchable_id", "user_id"}}
	for id := first; id <= last; id++ {
		b.Rows = append(b.Rows, []any{id, "Issue", id, w.issues[id-1].author})
	}
	return b
}

// journalBatch writes the comments of issues first..last: each by a member
// of the project other than the one before it.
func (w *world) journalBatch(pool textPool, first, last int) workload.Batch {
	rng := rand.New(rand.NewPCG(uint64(w.seed), uint64(first)<<1|1))
	b := workload.Batch{Table: "journals", Cols: []string{"id", "journalized_id", "journalized_type", "user_id", "notes",
		"created_on", "private_notes"}}
	for id := first; id <= last; id++ {
		ms := w.members[w.issues[id-1].project-1]
		for c := 0; c < commentsPerIssue; c++ {
			at := w.commentTime(id, c)
			b.Rows = append(b.Rows, []any{(id-1)*commentsPerIssue + c + 1, id, "Issue", ms[(id+c)%len(ms)],
				pool.cut(rng, commentLen(rng)), at, false})
		}
	}
	return b
}

// permissions of the default roles, as Redmine stores them (YAML).
func permissions(perms ...string) string {
	var b strings.Builder
	b.WriteString("---\n")
	for _, p := range perms {
		b.WriteString("- :" + p + "\n")
	}
	return b.String()
}

var developerPerms = []string{"manage_versions", "add_subprojects", "view_issues", "add_issues", "edit_issues",
	"copy_issues", "manage_issue_relations", "manage_subtasks", "add_issue_notes", "save_queries", "view_gantt",
	"view_calendar", "log_time", "view_time_entries", "comment_news", "view_documents", "view_wiki_pages",
	"view_wiki_edits", "edit_wiki_pages", "delete_wiki_pages", "add_messages", "edit_own_messages", "view_files",
	"manage_files", "browse_repository", "view_changesets", "commit_access"}

var managerPerms = append([]string{"add_project", "edit_project", "close_project", "select_project_modules",
	"manage_members", "manage_categories", "set_issues_private", "delete_issues", "manage_public_queries",
	"edit_time_entries", "manage_news", "manage_documents", "manage_wiki", "rename_wiki_pages", "protect_wiki_pages",
	"manage_boards", "edit_messages", "delete_messages", "manage_repository"}, developerPerms...)

var reporterPerms = []string{"view_issues", "add_issues", "add_issue_notes", "save_queries", "view_gantt",
	"view_calendar", "log_time", "view_time_entries", "comment_news", "view_documents", "view_wiki_pages",
	"view_wiki_edits", "add_messages", "edit_own_messages", "view_files", "browse_repository", "view_changesets"}

var modules = []string{"issue_tracking", "time_tracking", "news", "documents", "files", "wiki", "repository",
	"boards", "calendar", "gantt"}

// fixedTables are Redmine's default data plus the generated users,
// projects and memberships.
func (w *world) fixedTables() []workload.Batch {
	created := epoch.Add(-24 * time.Hour)
	var out []workload.Batch
	add := func(table string, cols []string, rows [][]any) {
		out = append(out, workload.Batch{Table: table, Cols: cols, Rows: rows})
	}
	add("settings", []string{"id", "name", "value", "updated_on"}, [][]any{
		{1, "rest_api_enabled", "1", created}, {2, "default_language", "en", created},
		{3, "issue_done_ratio", "issue_field", created}, {4, "parent_issue_priority", "derived", created},
		{5, "parent_issue_done_ratio", "derived", created}, {6, "parent_issue_dates", "derived", created},
	})
	users := [][]any{
		{1, "admin", "", "Redmine", "Admin", true, 1, "User", "all", created},
		{2, "", "", "", "Anonymous", false, 0, "AnonymousUser", "only_my_events", created},
		{3, "", "", "", "Anonymous users", false, 1, "GroupAnonymous", "", created},
		{4, "", "", "", "Non member users", false, 1, "GroupNonMember", "", created},
	}
	var emails, prefs, tokens [][]any
	for i := 0; i < w.shape.users; i++ {
		id := userID(i)
		login := fmt.Sprintf("user%05d", i+1)
		users = append(users, []any{id, login, fmt.Sprintf("%040x", id), "User", fmt.Sprintf("Number %d", i+1), false, 1, "User", "only_my_events", created})
		emails = append(emails, []any{i + 1, id, login + "@example.net", true, true, created, created})
		prefs = append(prefs, []any{i + 1, id, "---\n:no_self_notified: '1'\n:auto_watch_on:\n- issue_created\n- issue_contributed_to\n", true, ""})
		tokens = append(tokens, []any{i + 1, id, "api", w.apiKey(id), created, created})
	}
	add("users", []string{"id", "login", "hashed_password", "firstname", "lastname", "admin", "status", "type", "mail_notification", "created_on"}, users)
	add("email_addresses", []string{"id", "user_id", "address", "is_default", "notify", "created_on", "updated_on"}, emails)
	add("user_preferences", []string{"id", "user_id", "others", "hide_mail", "time_zone"}, prefs)
	add("tokens", []string{"id", "user_id", "action", "value", "created_on", "updated_on"}, tokens)

	var projects, enabled, members, memberRoles, projTrackers [][]any
	for p := range w.members {
		var parent any
		if w.parent[p] >= 0 {
			parent = w.parent[p] + 1
		}
		projects = append(projects, []any{p + 1, fmt.Sprintf("Project %d", p+1), "A project of the generated tracker.", "", true,
			parent, created, created, fmt.Sprintf("project-%d", p+1), 1, w.lft[p], w.rgt[p], false})
		for _, m := range modules {
			enabled = append(enabled, []any{len(enabled) + 1, p + 1, m})
		}
		for m, u := range w.members[p] {
			id := p*membersPerProject + m + 1
			members = append(members, []any{id, u, p + 1, created, false})
			role := roleDeveloper
			if m == 0 {
				role = roleManager
			}
			memberRoles = append(memberRoles, []any{id, id, role})
		}
		for t := 1; t <= 3; t++ {
			projTrackers = append(projTrackers, []any{p + 1, t})
		}
	}
	add("projects", []string{"id", "name", "description", "homepage", "is_public", "parent_id", "created_on", "updated_on",
		"identifier", "status", "lft", "rgt", "inherit_members"}, projects)
	add("enabled_modules", []string{"id", "project_id", "name"}, enabled)
	add("roles", []string{"id", "name", "position", "assignable", "builtin", "permissions", "issues_visibility"}, [][]any{
		{roleNonMember, "Non member", 0, true, 1, permissions("view_issues", "add_issues", "add_issue_notes"), "default"},
		{roleAnonymous, "Anonymous", 0, true, 2, permissions("view_issues"), "default"},
		{roleManager, "Manager", 1, true, 0, permissions(managerPerms...), "all"},
		{roleDeveloper, "Developer", 2, true, 0, permissions(developerPerms...), "default"},
		{roleReporter, "Reporter", 3, true, 0, permissions(reporterPerms...), "default"},
	})
	add("members", []string{"id", "user_id", "project_id", "created_on", "mail_notification"}, members)
	add("member_roles", []string{"id", "member_id", "role_id"}, memberRoles)
	add("trackers", []string{"id", "name", "position", "is_in_roadmap", "fields_bits", "default_status_id"}, [][]any{
		{1, "Bug", 1, false, 0, statusNew}, {2, "Feature", 2, true, 0, statusNew}, {3, "Support", 3, false, 0, statusNew},
	})
	add("projects_trackers", []string{"project_id", "tracker_id"}, projTrackers)
	var statuses [][]any
	for s := 1; s <= 6; s++ {
		statuses = append(statuses, []any{s, statusNames[s], isClosed(s), s})
	}
	add("issue_statuses", []string{"id", "name", "is_closed", "position"}, statuses)
	// Manager and Developer may move an issue between any two statuses,
	// on every tracker, as Redmine's default workflow lets them
	var flows [][]any
	for _, role := range []int{roleManager, roleDeveloper} {
		for t := 1; t <= 3; t++ {
			for from := 1; from <= 6; from++ {
				for to := 1; to <= 6; to++ {
					if from != to {
						flows = append(flows, []any{len(flows) + 1, t, from, to, role, false, false, "WorkflowTransition"})
					}
				}
			}
		}
	}
	add("workflows", []string{"id", "tracker_id", "old_status_id", "new_status_id", "role_id", "assignee", "author", "type"}, flows)
	add("enumerations", []string{"id", "name", "position", "is_default", "type", "active", "position_name"}, [][]any{
		{1, "Low", 1, false, "IssuePriority", true, "lowest"},
		{2, "Normal", 2, true, "IssuePriority", true, "default"},
		{3, "High", 3, false, "IssuePriority", true, "high3"},
		{4, "Urgent", 4, false, "IssuePriority", true, "high2"},
		{5, "Immediate", 5, false, "IssuePriority", true, "highest"},
		{6, "Design", 1, false, "TimeEntryActivity", true, nil},
		{7, "Development", 2, false, "TimeEntryActivity", true, nil},
	})
	return out
}

// Package redmine is the issue tracker of seeds 000/002: Redmine 5.0's
// tables, the seed's small/large/giant datasets, and its two work cycles
// (create an issue and comment on it ten times; process ten assigned
// issues) issued as the statements Redmine's ORM issues for them.
package redmine

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"sync"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

func init() {
	workload.Register(workload.Spec{Name: "redmine", App: "redmine",
		Description: "Redmine 5 issue tracker (seeds 000/002): create = an issue and 10 comments; process10 = 10 assigned issues to In Progress, then Resolved and back to their authors",
		Params: []workload.Param{
			{Name: "schema", Kind: workload.Text, Default: "redmine5", Valid: []string{"redmine5", "redmine3.3"},
				Help: "Redmine 5.0's indexes, or 3.3's (without index_issues_on_parent_id, as the seed's)"},
			{Name: "subtasks", Kind: workload.Float, Default: "0.15", Max: 0.9, Help: "the share of issues that are subtasks of another"},
			{Name: "protocol", Kind: workload.Text, Default: "text", Valid: []string{"text", "prepared"},
				Help: "text (as Rails sends statements) or prepared (server-side prepared statements)"},
			{Name: "load_parallel", Kind: workload.Int, Default: "4", Min: 1, Help: "goroutines generating rows while loading"},
		},
		New: func(v workload.Values) (workload.Workload, error) {
			return &Workload{opt: options(v), worlds: map[string]*world{}}, nil
		},
	})
}

// Options are the workload's parameters (plan `params:`).
type Options struct {
	// Schema is redmine5 (Redmine 5.0's indexes) or redmine3.3 (without
	// index_issues_on_parent_id, as the seed's Redmine 3.3.1 had it).
	Schema string
	// Subtasks is the share of issues, loaded and created, that are
	// subtasks of another issue; updating one recalculates its parent
	// through five reads by parent_id.
	Subtasks float64
	// LoadParallel is how many goroutines generate rows while loading.
	LoadParallel int
	// Protocol is how statements reach a MySQL-compatible server: text
	// (as Rails' mysql2 adapter sends them, the server parsing each one)
	// or prepared (server-side prepared statements, the binary protocol).
	// PostgreSQL gets prepared statements either way, as Rails' pg
	// adapter prepares them; SQLite is embedded.
	Protocol string
}

// options are the checked parameters.
func options(v workload.Values) Options {
	return Options{Schema: v.Text("schema"), Subtasks: v.Float("subtasks"), LoadParallel: v.Int("load_parallel"), Protocol: v.Text("protocol")}
}

// Workload is the configured redmine workload.
type Workload struct {
	opt    Options
	mu     sync.Mutex
	worlds map[string]*world
	// pool is the cell in progress' supply of New issues (Before makes it)
	pool *newIssues
	// firstHTTPError is the cell's first error answer from Redmine (--app)
	firstHTTPError string
	// doubts are the cell's commits whose answer was lost with the
	// connection; Check finds out which of them committed
	doubts []doubtfulCommit
}

// InAgents: the clients of a cell share one supply of New issues, which
// Before reads, so they run in one agent at most, which reads it itself
// (AgentBefore).
func (w *Workload) InAgents(agents int) error {
	if agents > 1 {
		return fmt.Errorf("its clients share one supply of New issues: one agent at most, not %d", agents)
	}
	return nil
}

// AgentBefore: an agent reads the supply of New issues before its clients
// connect.
func (w *Workload) AgentBefore() {}

func (w *Workload) addDoubt(d doubtfulCommit) {
	w.mu.Lock()
	w.doubts = append(w.doubts, d)
	w.mu.Unlock()
}

// noteHTTPError keeps the cell's first error answer for its drift notes.
func (w *Workload) noteHTTPError(e string) {
	w.mu.Lock()
	if w.firstHTTPError == "" {
		w.firstHTTPError = e
	}
	w.mu.Unlock()
}

func (w *Workload) Name() string { return "redmine" }
func (w *Workload) Description() string {
	return "Redmine 5 issue tracker: create (an issue, 10 comments) and process10 (10 assigned issues moved on)"
}
func (w *Workload) Ops() []string { return []string{"create", "process10"} }

// Version names the cycles' definition. 2: the statements real Redmine
// 5.0.4 sends per request (text protocol); process10 only with a full list
// of New issues, which the creates feed. 3: a PUT on an issue without an
// open subtask reads its blocking relations, as Redmine does.
func (w *Workload) Version() string { return "3" }

// DefaultDataset is the seed's small set.
func (w *Workload) DefaultDataset() string { return "small" }

// Dataset is one of the seed's sets; Rows is its number of issues.
func (w *Workload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	s, ok := shapes[spec]
	if !ok {
		return workload.Dataset{}, fmt.Errorf("dataset %q: want small, large or giant (the seed's sets: 1k, 10k, 100k issues)", spec)
	}
	return workload.Dataset{Name: spec, Rows: int64(s.issues), Seed: seed, LoadRows: s.loadRows()}, nil
}

// world generates the dataset's skeleton once per dataset; workers read it
// to pick members, projects and parents that exist.
func (w *Workload) world(ds workload.Dataset) (*world, error) {
	s, ok := shapes[ds.Name]
	if !ok {
		return nil, fmt.Errorf("dataset %q: want small, large or giant", ds.Name)
	}
	key := fmt.Sprintf("%s/%d", ds.Name, ds.Seed)
	w.mu.Lock()
	defer w.mu.Unlock()
	if wd := w.worlds[key]; wd != nil {
		return wd, nil
	}
	wd := newWorld(s, ds.Seed, w.opt.Subtasks)
	w.worlds[key] = wd
	return wd, nil
}

func (w *Workload) Schema(d dialect.Dialect, ds workload.Dataset) []string {
	return workload.CreateTables(d, tables(w.opt.Schema))
}

// App is the application --app redmine runs: Debian's Redmine 5.0.4.
func (w *Workload) App() string { return "redmine" }

// AppPrepare empties what Redmine's migrations put in the tables the
// load fills (the built-in roles and groups, the default settings), so
// the loaded rows keep the ids the workload draws from. TRUNCATE where
// the server has it: MyRocks' bulk load refuses keys that deleted rows
// still hold in its memtable.
func (w *Workload) AppPrepare(d dialect.Dialect, ds workload.Dataset) []string {
	empty := "TRUNCATE TABLE "
	if d.Flavor == dialect.SQLite {
		empty = "DELETE FROM "
	}
	var out []string
	for _, t := range tables("redmine5") {
		out = append(out, empty+t.Name)
	}
	if d.Flavor == dialect.MySQL && d.Engine == "rocksdb" {
		out = append(out, "SET GLOBAL rocksdb_force_flush_memtable_now = 1")
	}
	return out
}

// AppPostLoad moves PostgreSQL's sequences past the loaded ids; Redmine's
// migrations made the indexes.
func (w *Workload) AppPostLoad(d dialect.Dialect, ds workload.Dataset) []string {
	var out []string
	for _, t := range tables("redmine5") {
		if !t.NoID {
			out = append(out, d.ResetSequence(t.Name)...)
		}
	}
	return out
}

// PostLoad builds the indexes after the rows are in, and moves
// PostgreSQL's id sequences past the loaded ids.
func (w *Workload) PostLoad(d dialect.Dialect, ds workload.Dataset) []string {
	return workload.IndexTables(d, tables(w.opt.Schema))
}

func (w *Workload) Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	wd, err := w.world(ds)
	if err != nil {
		return workload.LoadStats{}, err
	}
	return workload.LoadBatches(ctx, db, d, wd.batches(), w.opt.LoadParallel, progress)
}

// Loaded is true when the server holds the dataset as loaded, untouched by
// a run: a run adds issues and journals, and every cell starts from the
// same data.
func (w *Workload) Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (bool, error) {
	s := shapes[ds.Name]
	want := map[string]int64{"issues": int64(s.issues), "journals": int64(s.issues * commentsPerIssue), "journal_details": 0,
		"members": int64(s.projects() * membersPerProject)}
	for table, n := range want {
		var got int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&got); err != nil || got != n {
			return false, nil
		}
	}
	return true, nil
}

var countedTables = []string{"issues", "journals", "journal_details", "watchers"}

// Before records row counts and the highest ids, so Check can tell what
// the run wrote.
func (w *Workload) Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (workload.State, error) {
	// the skeleton the workers read, made before the window (an agent's
	// workload loaded nothing)
	if _, err := w.world(ds); err != nil {
		return nil, err
	}
	st := workload.State{}
	for _, t := range countedTables {
		var n, top sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*), MAX(id) FROM "+t).Scan(&n, &top); err != nil {
			return nil, fmt.Errorf("read %s before the run: %w", t, err)
		}
		st[t], st["max_"+t] = n.Int64, top.Int64
	}
	pool, err := readNewIssues(ctx, db, d.Bind)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.pool, w.firstHTTPError, w.doubts = pool, "", nil
	w.mu.Unlock()
	return st, nil
}

// Check verifies what must hold after a run (docs/workloads.md):
//   - every table grew by exactly what committed requests wrote;
//   - every created issue has its ten comments (but for cycles abandoned);
//   - every status and assignee change of the run continues from the value
//     the previous change left (no lost update), and the last one is what
//     the issue holds;
//   - every issue a process10 cycle finished is Resolved and assigned to
//     its author.
func (w *Workload) Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	inv := workload.Invariants{OK: true}
	failf := func(format string, args ...any) {
		inv.OK = false
		if len(inv.Failures) < 20 {
			inv.Failures = append(inv.Failures, fmt.Sprintf(format, args...))
		}
	}
	checked := func(format string, args ...any) { inv.Checked = append(inv.Checked, fmt.Sprintf(format, args...)) }
	counters = w.settleDoubts(ctx, db, d, counters, failf, checked)
	// Redmine adds no watcher in these requests: watchers must not move
	added := map[string]int64{"issues": counters["issues_created"], "journals": counters["journals"],
		"journal_details": counters["journal_details"]}
	for _, t := range countedTables {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t).Scan(&n); err != nil {
			failf("count %s: %v", t, err)
			continue
		}
		want := before[t] + added[t]
		checked("%s: %d rows = %d before + %d committed", t, n, before[t], added[t])
		if n != want {
			failf("%s holds %d rows, want %d (%d before + %d committed by the clients)", t, n, want, before[t], added[t])
		}
	}

	// comments of the issues the run created
	rows, err := db.QueryContext(ctx, d.Bind(`SELECT issues.id, COUNT(journals.id) FROM issues
  LEFT JOIN journals ON journals.journalized_id = issues.id AND journals.journalized_type = 'Issue' AND journals.notes <> ''
  WHERE issues.id > ? GROUP BY issues.id`), before["max_issues"])
	if err != nil {
		failf("read the comments of created issues: %v", err)
	} else {
		var short, comments int64
		for rows.Next() {
			var id, n int64
			if err := rows.Scan(&id, &n); err != nil {
				failf("read the comments of created issues: %v", err)
				break
			}
			comments += n
			if n != commentsPerIssue {
				short++
				if short > counters["unfinished_creates"] {
					failf("issue %d was created with %d comments, want %d", id, n, commentsPerIssue)
				}
			}
		}
		rows.Close()
		checked("created issues have %d comments each (%d cycles abandoned)", commentsPerIssue, counters["unfinished_creates"])
		checked("comments on created issues: %d, committed %d", comments, counters["comments"])
		if comments != counters["comments"] {
			failf("created issues hold %d comments, the clients committed %d", comments, counters["comments"])
		}
	}
	w.checkChanges(ctx, db, d, before, counters, failf, checked)
	inv.Drift = drift(counters)
	if n := counters["http_4xx"] + counters["http_5xx"]; n > 0 {
		w.mu.Lock()
		first := w.firstHTTPError
		w.mu.Unlock()
		inv.Drift = append(inv.Drift, fmt.Sprintf("Redmine answered %d of %d requests with an error (%d 4xx, %d 5xx), each sent again; the first: %s",
			n, counters["http_requests"], counters["http_4xx"], counters["http_5xx"], first))
	}
	return inv
}

// settleDoubts adds to the clients' counters the commits that went
// unanswered but took effect, which it tells by their first row; the
// counters it returns are a copy.
func (w *Workload) settleDoubts(ctx context.Context, db *sql.DB, d dialect.Dialect, counters map[string]int64,
	failf, checked func(string, ...any)) map[string]int64 {
	w.mu.Lock()
	doubts := w.doubts
	w.mu.Unlock()
	if len(doubts) == 0 {
		return counters
	}
	settled := maps.Clone(counters)
	took := 0
	for _, c := range doubts {
		var n int64
		if err := db.QueryRowContext(ctx, d.Bind("SELECT COUNT(*) FROM "+c.row.table+" WHERE id = ?"), c.row.id).Scan(&n); err != nil {
			failf("read %s %d, written by a commit that went unanswered: %v", c.row.table, c.row.id, err)
			continue
		}
		if n == 0 {
			continue
		}
		took++
		settled["issues_created"] += c.counts.issuesCreated
		settled["comments"] += c.counts.comments
		settled["journals"] += c.counts.journals
		settled["journal_details"] += c.counts.details
		settled["issues_resolved"] += c.counts.resolved
		if c.create {
			settled["unfinished_creates"]++
		}
	}
	checked("%d commits went unanswered when their connection was lost: %d took effect (their first row is there) and are counted as committed",
		len(doubts), took)
	return settled
}

// drift says how far the run's cycles departed from the seed's: process10
// lists shorter than ten (the pool counted issues the database did not
// list), turns of process10 that waited for a full list, updates that
// found the issue already moved on or unchanged.
func drift(c map[string]int64) []string {
	var out []string
	if lists := c["process10_lists"]; lists > 0 && c["short_lists"] > 0 {
		out = append(out, fmt.Sprintf("process10 moved %.1f issues per cycle, not %d: %d of %d lists were shorter than the supply of New issues promised",
			float64(c["issues_listed"])/float64(lists), listLength, c["short_lists"], lists))
	}
	if n := c["process10_waits"]; n > 0 {
		out = append(out, fmt.Sprintf("%d process10 turns ran a create instead: no free user had ten New issues (the creates feed the lists), so the run holds more creates than process10 cycles",
			n))
	}
	if n := c["issues_taken_by_others"]; n > 0 {
		out = append(out, fmt.Sprintf("%d issue updates were skipped: another client had moved the issue on since the list was read", n))
	}
	if n := c["unchanged_updates"]; n > 0 {
		out = append(out, fmt.Sprintf("%d issue updates found nothing to change and wrote nothing", n))
	}
	return out
}

// change is one journal detail of the run.
type change struct {
	issue, journal int64
	key            string
	old, value     sql.NullString
}

func (w *Workload) checkChanges(ctx context.Context, db *sql.DB, d dialect.Dialect, before workload.State, counters map[string]int64,
	failf, checked func(string, ...any)) {
	byIssue, err := journalChanges(ctx, db, d, before)
	if err != nil {
		failf("read the run's journal details: %v", err)
		return
	}
	ids := make([]int64, 0, len(byIssue))
	for id := range byIssue {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var resolved, lastInProgress int64
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		marks := strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",")
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := db.QueryContext(ctx, d.Bind("SELECT id, status_id, assigned_to_id, author_id FROM issues WHERE id IN ("+marks+")"), args...)
		if err != nil {
			failf("read the changed issues: %v", err)
			return
		}
		for rows.Next() {
			var id, status, author int64
			var assigned sql.NullInt64
			if err := rows.Scan(&id, &status, &assigned, &author); err != nil {
				failf("read the changed issues: %v", err)
				break
			}
			r, inProgress := checkIssue(id, status, author, assigned, byIssue[id], failf)
			resolved += r
			if inProgress {
				lastInProgress++
			}
		}
		rows.Close()
	}
	checked("%d issues changed: each status/assignee change continues from the previous one and the last is what the issue holds", len(ids))
	checked("%d resolutions, committed %d; resolved issues are assigned to their authors", resolved, counters["issues_resolved"])
	if resolved != counters["issues_resolved"] {
		failf("journals record %d resolutions, the clients committed %d", resolved, counters["issues_resolved"])
	}
	// a cycle ends with its issues resolved; In Progress is left only by
	// a cycle given up half-way
	if allowed := 10 * counters["unfinished_process10"]; lastInProgress > allowed {
		failf("%d issues were left In Progress by the run, but only %d process10 cycles were given up", lastInProgress, counters["unfinished_process10"])
	}
}

// journalChanges is the run's journal details (those past before's
// max_journal_details) by issue, in the order they were written.
func journalChanges(ctx context.Context, db *sql.DB, d dialect.Dialect, before workload.State) (map[int64][]change, error) {
	rows, err := db.QueryContext(ctx, d.Bind(`SELECT journals.journalized_id, journals.id, journal_details.prop_key, journal_details.old_value, journal_details.value
  FROM journal_details INNER JOIN journals ON journals.id = journal_details.journal_id
  WHERE journal_details.id > ? ORDER BY journals.journalized_id, journals.id, journal_details.id`), before["max_journal_details"])
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byIssue := map[int64][]change{}
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.issue, &c.journal, &c.key, &c.old, &c.value); err != nil {
			return nil, err
		}
		byIssue[c.issue] = append(byIssue[c.issue], c)
	}
	return byIssue, nil
}

// checkIssue checks one issue's changes: each status or assignee change
// continues from the one before, and the last is what the issue holds
// (a resolved issue is assigned to its author). It returns the
// resolutions among them and whether the issue was left In Progress.
func checkIssue(id, status, author int64, assigned sql.NullInt64, changes []change, failf func(string, ...any)) (resolved int64, inProgress bool) {
	last := map[string]change{}
	for _, c := range changes {
		if c.key != "status_id" && c.key != "assigned_to_id" {
			continue // child_id details record subtasks, not a value that moves on
		}
		if prev, ok := last[c.key]; ok && prev.value != c.old {
			failf("issue %d: journal %d changes %s from %q, but journal %d left it at %q (a lost update)",
				id, c.journal, c.key, c.old.String, prev.journal, prev.value.String)
		}
		last[c.key] = c
		if c.key == "status_id" && c.value.String == strconv.Itoa(statusResolved) {
			resolved++
		}
	}
	if c, ok := last["status_id"]; ok {
		if c.value.String != strconv.FormatInt(status, 10) {
			failf("issue %d holds status %d, its last journal (%d) says %s", id, status, c.journal, c.value.String)
		}
		switch c.value.String {
		case strconv.Itoa(statusResolved):
			if !assigned.Valid || assigned.Int64 != author {
				failf("issue %d was resolved but is assigned to %v, not its author %d", id, assigned.Int64, author)
			}
		case strconv.Itoa(statusInProgress):
			inProgress = true
		}
	}
	if c, ok := last["assigned_to_id"]; ok && (!assigned.Valid || c.value.String != strconv.FormatInt(assigned.Int64, 10)) {
		failf("issue %d is assigned to %v, its last journal (%d) says %s", id, assigned.Int64, c.journal, c.value.String)
	}
	return resolved, inProgress
}

package redmine

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// The workload must send per request what real Redmine 5.0.4 sends
// (testdata/capture-*.sql, made by scripts/redmine-capture.sh): by kind —
// SELECT by its table, INSERT and UPDATE by table, BEGIN and COMMIT —
// the reads within 10% per kind, the writes and transactions exactly.

var (
	fromTable   = regexp.MustCompile(`(?i)\bFROM\s+[\x60"]?([a-z_]+)`)
	insertTable = regexp.MustCompile(`(?i)^INSERT INTO\s+[\x60"]?([a-z_]+)`)
	updateTable = regexp.MustCompile(`(?i)^UPDATE\s+[\x60"]?([a-z_]+)`)
)

// statementKind sorts one statement: "SELECT issues", "UPDATE issues",
// "BEGIN"; "SELECT" alone is a read of no table (a connection check).
func statementKind(q string) string {
	q = strings.TrimSpace(q)
	first := strings.ToUpper(strings.Fields(q)[0])
	switch first {
	case "BEGIN", "COMMIT", "ROLLBACK":
		return first
	case "SELECT":
		if m := fromTable.FindStringSubmatch(q); m != nil {
			return "SELECT " + m[1]
		}
		return "SELECT"
	case "INSERT":
		if m := insertTable.FindStringSubmatch(q); m != nil {
			return "INSERT " + m[1]
		}
	case "UPDATE":
		if m := updateTable.FindStringSubmatch(q); m != nil {
			return "UPDATE " + m[1]
		}
	}
	return first
}

// readCapture returns per request the kinds of its statements, in order.
func readCapture(t *testing.T, path string) (map[string][]string, []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[string][]string{}
	var order []string
	var request string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "-- request "); ok {
			// a name sent again (a cycle's ten comments) adds to its kinds
			request = name
			if _, seen := kinds[name]; !seen {
				order = append(order, name)
				kinds[name] = nil
			}
			continue
		}
		if strings.HasPrefix(line, "--") || strings.TrimSpace(line) == "" {
			continue
		}
		kinds[request] = append(kinds[request], statementKind(line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(order) == 0 {
		t.Fatalf("%s holds no requests", path)
	}
	return kinds, order
}

func TestStatementKinds(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT `users`.* FROM `users` WHERE `users`.`id` = 6 LIMIT 1": "SELECT users",
		`SELECT MAX("settings"."updated_on") FROM "settings"`:          "SELECT settings",
		"SELECT 1": "SELECT",
		"INSERT INTO `journals` (`journalized_id`) VALUES (3)":        "INSERT journals",
		`UPDATE "issues" SET "root_id" = $1 WHERE "issues"."id" = $5`: "UPDATE issues",
		"BEGIN IMMEDIATE": "BEGIN",
		"SELECT 1 AS one FROM issues INNER JOIN projects ON projects.id = issues.project_id": "SELECT issues",
	} {
		if got := statementKind(q); got != want {
			t.Errorf("statementKind(%q) = %q, want %q", q, got, want)
		}
	}
}

// compareKinds lists every kind of a request whose count differs beyond
// the tolerance.
func compareKinds(captured, sent []string) []string {
	count := func(ks []string) map[string]int {
		m := map[string]int{}
		for _, k := range ks {
			m[k]++
		}
		return m
	}
	c, s := count(captured), count(sent)
	var all []string
	for k := range c {
		all = append(all, k)
	}
	for k := range s {
		if _, ok := c[k]; !ok {
			all = append(all, k)
		}
	}
	sort.Strings(all)
	var bad []string
	for _, k := range all {
		slack := 0
		if strings.HasPrefix(k, "SELECT") {
			slack = c[k] / 10
		}
		if d := s[k] - c[k]; d > slack || -d > slack {
			bad = append(bad, fmt.Sprintf("%s: Redmine %d, workload %d", k, c[k], s[k]))
		}
	}
	return bad
}

func TestWorkloadSendsWhatRedmineSends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, c := range []struct{ target, capture string }{
		{"mariadb-innodb", "testdata/capture-mariadb.sql"},
		{"postgres", "testdata/capture-postgres.sql"},
	} {
		t.Run(c.target, func(t *testing.T) {
			want, order := readCapture(t, c.capture)
			got := runCaptureScenario(t, c.target)
			for _, request := range order {
				t.Logf("%s: Redmine %d, workload %d", request, len(want[request]), len(got[request]))
				if bad := compareKinds(want[request], got[request]); len(bad) > 0 {
					t.Errorf("%s: %d statements in Redmine, %d in the workload; differing kinds:\n  %s",
						request, len(want[request]), len(got[request]), strings.Join(bad, "\n  "))
				}
			}
		})
	}
}

// runCaptureScenario replays scripts/redmine-capture.sh's second round on
// the small set in a private server: the ten members of one project, none
// of whom has used it yet; the assignee's other New issues are closed first
// so their list holds the two issues of the round, as the capture's did.
func runCaptureScenario(t *testing.T, name string) map[string][]string {
	ctx := context.Background()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: testenv.WorkDir(t), Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(ctx)
	db, d := inst.(target.SQLInstance).DB(), inst.(target.SQLInstance).Dialect()
	wl, err := parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &Workload{opt: wl, worlds: map[string]*world{}}
	ds, err := w.Dataset("small", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range w.Schema(d, ds) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := w.Load(ctx, db, d, ds, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	for _, q := range w.PostLoad(d, ds) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	wd, _ := w.world(ds)
	const project = 1
	ms := wd.members[project-1]
	author, assignee, commenter1, commenter2 := ms[0], ms[1], ms[2], ms[3]
	if _, err := db.ExecContext(ctx, d.Bind("UPDATE issues SET status_id = ? WHERE assigned_to_id = ? AND status_id = ?"), statusClosed, assignee, statusNew); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wk := w.newWorker(conn, d, wd, rand.New(rand.NewPCG(1, 2)), 0)
	defer wk.Close()
	wk.out = workload.Outcome{}
	sent := map[string][]string{}
	var request string
	wk.trace = func(_, text string) { sent[request] = append(sent[request], statementKind(text)) }
	step := func(name string, f func() error) {
		request = name
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	write := func(name string, f func() (func(context.Context) error, error)) {
		step(name, func() error {
			after, err := f()
			if err == nil && after != nil {
				err = after(ctx)
			}
			return err
		})
	}
	var root, child int64
	write("create.post_issue", func() (after func(context.Context) error, err error) {
		root, after, err = wk.createIssue(ctx, author, project, assignee, 0, "Capture root", "A description.")
		return after, err
	})
	write("create.post_subtask", func() (after func(context.Context) error, err error) {
		child, after, err = wk.createIssue(ctx, author, project, assignee, int(root), "Capture child", "A description.")
		return after, err
	})
	write("create.put_notes", func() (func(context.Context) error, error) { return wk.comment(ctx, commenter1, root, "A comment.") })
	write("create.put_notes_subtask", func() (func(context.Context) error, error) {
		return wk.comment(ctx, commenter2, child, "Another comment.")
	})
	step("process10.get_assigned", func() error {
		ids, err := wk.listAssigned(ctx, assignee)
		if err == nil && (len(ids) != 2 || ids[0] != child || ids[1] != root) {
			err = fmt.Errorf("listed %v, want [%d %d]", ids, child, root)
		}
		return err
	})
	write("process10.put_in_progress", func() (func(context.Context) error, error) {
		return wk.changeStatus(ctx, assignee, root, statusInProgress, false)
	})
	write("process10.put_in_progress_subtask", func() (func(context.Context) error, error) {
		return wk.changeStatus(ctx, assignee, child, statusInProgress, false)
	})
	write("process10.put_resolved", func() (func(context.Context) error, error) {
		return wk.changeStatus(ctx, assignee, root, statusResolved, true)
	})
	write("process10.put_resolved_subtask", func() (func(context.Context) error, error) {
		return wk.changeStatus(ctx, assignee, child, statusResolved, true)
	})
	// a whole create cycle as worker.go's createCycle sends it: the
	// project's first member creates, then the other nine comment in turn
	// and the first of them again; three of them have used the project in
	// this round already, so only the six others' first comments change
	// their recently used projects
	var cycleIssue int64
	write("cycle.post_issue", func() (after func(context.Context) error, err error) {
		cycleIssue, after, err = wk.createIssue(ctx, author, project, commenter1, 0, "Cycle", "A description.")
		return after, err
	})
	for k := 0; k < commentsPerIssue; k++ {
		commenter := ms[(1+k%(len(ms)-1))%len(ms)]
		write("cycle.put_notes", func() (func(context.Context) error, error) {
			return wk.comment(ctx, commenter, cycleIssue, fmt.Sprintf("Comment %d.", k))
		})
	}
	if wk.taken != 0 || wk.noops != 0 {
		t.Fatalf("the scenario skipped requests: %d taken by others, %d unchanged", wk.taken, wk.noops)
	}
	return sent
}

package run

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// runRedmine runs the redmine workload on the small set for a few seconds
// with two clients on one target and returns its one result.
func runRedmine(t *testing.T, name string, params map[string]string, beforeCheck func(context.Context, *sql.DB) error) *result.File {
	return runRedmineWith(t, name, params, &Runner{beforeCheck: beforeCheck}, "", 2)
}

// runRedmineWith runs it with r and clients, through the application
// apps names ("" for SQL clients).
func runRedmineWith(t *testing.T, name string, params map[string]string, r *Runner, apps string, clients int) *result.File {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	out := testenv.WorkDir(t)
	p := redminePlan(name, params, apps, clients)
	// its callers run side by side: the server shares the cores (a cell
	// placed on its own CPUs moves the whole test process)
	p.CPUs = "all"
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.OutDir, r.Log = out, logWriter(t)
	if _, err := r.Matrix(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	files, err := result.ReadDir(out)
	if err != nil || len(files) != 1 {
		t.Fatalf("want one result, got %d (%v)", len(files), err)
	}
	return files[0]
}

// redminePlan is the redmine workload's short cell on the small set.
func redminePlan(name string, params map[string]string, apps string, clients int) *plan.Plan {
	p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: []string{"redmine"}, Datasets: []string{"small"},
		Clients: []int{clients}, Duration: "3s", Interval: "0s", Params: params}
	if apps != "" {
		p.App, p.Duration = []string{apps}, "10s"
	}
	return p
}

// TestRedmineOnEveryServer runs both work cycles against each real server
// and asserts that they committed, were timed per operation and per
// statement, and left the data as the committed work says.
func TestRedmineOnEveryServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, name := range []string{"sqlite", "mariadb-innodb", "mariadb-rocksdb", "postgres"} {
		name := name
		t.Run(name, func(t *testing.T) {
			// side by side, each in a process of its own (runPlanApart):
			// what is asserted is each cell's own work and checks
			t.Parallel()
			requireTargets(t, name)
			files, _ := runPlanApart(t, redminePlan(name, nil, "", 2), 1)
			f := files[0]
			checkRedmineCell(t, f)
			c := f.Counters
			if c["issues_created"] == 0 || c["comments"] != 10*c["issues_created"]-missingComments(f) || c["issues_resolved"] == 0 {
				t.Errorf("counters: %v", c)
			}
			if len(f.Statements) == 0 || f.Space.TableBytes <= 0 {
				t.Errorf("statements %d, table bytes %d", len(f.Statements), f.Space.TableBytes)
			}
		})
	}
}

// checkRedmineCell asserts that both cycles ran, were timed, and left the
// database as the committed work says.
func checkRedmineCell(t *testing.T, f *result.File) {
	t.Helper()
	if !f.OK() {
		t.Fatalf("cell failed: %s", f.Status)
	}
	for _, op := range []string{"create", "process10"} {
		if f.Ops[op].Count == 0 || f.Ops[op].MeanMs <= 0 {
			t.Errorf("operation %s: %+v", op, f.Ops[op])
		}
	}
	if !f.Invariants.OK || len(f.Invariants.Checked) < 8 {
		t.Errorf("invariants: %+v", f.Invariants)
	}
}

// missingComments allows for create cycles given up half-way (none in a
// healthy run, but a retried deadlock at the very end is legitimate).
func missingComments(f *result.File) int64 {
	if f.Counters["unfinished_creates"] == 0 {
		return 0
	}
	return 10*f.Counters["issues_created"] - f.Counters["comments"]
}

// TestRedmineLostJournalFailsTheCell deletes one comment behind the
// workload's back and asserts the cell is reported failed, naming it.
func TestRedmineLostJournalFailsTheCell(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	t.Parallel()
	for _, name := range []string{"sqlite", "mariadb-innodb"} {
		name := name
		t.Run(name, func(t *testing.T) {
			f := runRedmine(t, name, nil, func(ctx context.Context, db *sql.DB) error {
				var id int64
				if err := db.QueryRowContext(ctx, "SELECT MAX(id) FROM journals WHERE notes <> ''").Scan(&id); err != nil {
					return err
				}
				_, err := db.ExecContext(ctx, "DELETE FROM journals WHERE id = "+strconv.FormatInt(id, 10))
				return err
			})
			if f.OK() || !strings.Contains(f.Status, "invariants") || !strings.Contains(f.Status, "journals holds") {
				t.Fatalf("a deleted journal was not caught: status %q", f.Status)
			}
			if !strings.Contains(f.Status, "comments") {
				t.Errorf("the failure should name the issue short of comments: %q", f.Status)
			}
		})
	}
}

// TestRedmineLostConnectionAbandonsTheCycle kills every client session in
// the middle of the run: each client reconnects, the cycle it was in is
// given up and counted as unfinished, and the invariants, which allow for
// unfinished cycles, still hold.
func TestRedmineLostConnectionAbandonsTheCycle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	t.Parallel()
	killed := make(chan int, 1)
	f := runRedmineWith(t, "mariadb-innodb", nil, &Runner{duringRun: func(ctx context.Context, db *sql.DB) {
		time.Sleep(1500 * time.Millisecond)
		killed <- killClientSessions(ctx, db, false)
	}}, "", 2)
	if n := <-killed; n < 2 {
		t.Fatalf("killed %d client sessions, want both", n)
	}
	if !f.OK() {
		t.Fatalf("a lost connection must not fail the cell or its invariants: %s", f.Status)
	}
	c := f.Counters
	if f.Throughput.Reconnects < 2 || f.Throughput.GivenUp < 2 || c["unfinished_creates"]+c["unfinished_process10"] < 1 {
		t.Fatalf("reconnects %d, given up %d, unfinished creates %d / process10 %d: the cycles cut off must be counted",
			f.Throughput.Reconnects, f.Throughput.GivenUp, c["unfinished_creates"], c["unfinished_process10"])
	}
}

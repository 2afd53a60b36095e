package run

import (
	"testing"

	"shootout/internal/app"
	"shootout/internal/dialect"
	"shootout/internal/testenv"
)

// TestRedmineInTheLoop runs the redmine workload through Debian's real
// Redmine under puma on each kind of server: both cycles over its REST
// API, the invariants checked through the database afterwards, Redmine's
// CPU beside the server's.
func TestRedmineInTheLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers and Redmine")
	}
	// one client on SQLite: two puma workers writing one file meet
	// "database is locked" (Rails begins deferred transactions) often
	// enough to fail a short cell, which is Redmine's behaviour, not
	// shootout's; the cell's drift says so (docs/workloads.md)
	for _, c := range []struct {
		name    string
		flavor  dialect.Flavor
		clients int
	}{{"mariadb-innodb", dialect.MySQL, 2}, {"postgres", dialect.Postgres, 2}, {"sqlite", dialect.SQLite, 1}} {
		t.Run(c.name, func(t *testing.T) {
			// side by side, each in a process of its own (runPlanApart):
			// what is asserted is each cell's own work, counters and
			// figures being there, not how fast it went; a third of the
			// test's time on the 2 cores, most of it Rails booting
			t.Parallel()
			if err := app.RedmineAvailable(c.flavor); err != nil {
				if testenv.CI() {
					t.Fatalf("CI=true and %v", err)
				}
				t.Skip(err)
			}
			requireTargets(t, c.name)
			files, _ := runPlanApart(t, redminePlan(c.name, nil, "redmine", c.clients), 1)
			f := files[0]
			checkRedmineCell(t, f)
			if c := f.Counters; c["issues_created"] == 0 || c["http_requests"] == 0 {
				t.Errorf("counters: %v", c)
			}
			if f.App == nil || f.App.CPUSeconds <= 0 || f.App.Requests == 0 || f.Target.App == "" || f.Cell.Conditions.App != "redmine" {
				t.Errorf("application figures: %+v, target %+v", f.App, f.Target)
			}
			if c.flavor == dialect.MySQL && f.App != nil && f.App.StatementsPerRequest < 20 {
				t.Errorf("MariaDB counted %.1f statements per Redmine request: Redmine sends 30 to 80", f.App.StatementsPerRequest)
			}
		})
	}
}

package run

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"shootout/internal/app"
	"shootout/internal/dialect"
	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// A cell with an application in the loop (--app NAME): the target starts
// as usual, and the workload's session on its database is wrapped by the
// application's (internal/app), which loads through the application's
// migrations, starts its server inside the cell's cgroups (the memory cap
// covers both, as in the seeds' one VM), and gives clients of its HTTP
// API. The application is found by name in app's registry.

// appMemory is what the cell's application takes of its memory cap.
func appMemory(c result.Cell) (bytes int64, who string) {
	if c.Conditions.App == "" {
		return 0, ""
	}
	kind, err := app.Lookup(c.Conditions.App)
	if err != nil {
		return 0, ""
	}
	return kind.Memory(c.Clients)
}

// serverBudget is the part of budget the database server's caches are
// sized from: what the application in the loop leaves (its own share
// comes out of the same cap). It fails when the application alone would
// fill the cap.
func serverBudget(c result.Cell, budget int64) (int64, string, error) {
	share, who := appMemory(c)
	if share == 0 {
		return budget, "", nil
	}
	if budget <= share {
		return 0, "", fmt.Errorf("%s alone takes about %s, the whole cap: give more", who, target.HumanBytes(share))
	}
	return budget - share, fmt.Sprintf("%s of it kept for %s", target.HumanBytes(share), who), nil
}

// openApp wraps the cell's session on its database in the application
// called name.
func (c *cellRun) openApp(name string) error {
	kind, err := app.Lookup(name)
	if err != nil {
		return err
	}
	db, ok := c.sess.(*workload.SQLSession)
	if !ok || !c.t.Managed() {
		return fmt.Errorf("--app %s needs a SQL target shootout starts (%s is not)", name, c.t.Name())
	}
	workDir := filepath.Join(c.dataDir(), "app")
	if err := os.MkdirAll(workDir, 0o700); err != nil {
		return err
	}
	opt := app.Options{Workload: c.w, DB: db, Target: c.t.Name(), WorkDir: workDir, Workers: c.cell.Clients, Log: c.Log,
		Track: c.Ledger.AddServer, Untrack: c.Ledger.ForgetServer}
	if c.group != nil {
		opt.Wrap = c.group.Wrap
	}
	a, err := kind.Open(opt)
	if err != nil {
		return err
	}
	c.sess = a
	c.later(func() {
		if err := a.Close(); err != nil {
			logf(c.Log, "%v", err)
		}
	})
	return nil
}

// inLoop is the cell's application in the loop, or nil.
func (c *cellRun) inLoop() app.InLoop {
	a, _ := c.sess.(app.InLoop)
	return a
}

// questions is the server's count of statements received, -1 where it
// keeps none.
func questions(ctx context.Context, db *sql.DB, d dialect.Dialect) int64 {
	return d.StatementsReceived(ctx, db)
}

// fillApp records the application server's CPU and memory beside the
// database server's, and what the database counted per HTTP request.
func (c *cellRun) fillApp(au, du metrics.Report, events int64, counters map[string]int64, qBefore, qAfter int64) {
	in := c.inLoop()
	a := &result.App{Name: in.Version(), CPUSeconds: au.ServerCPUSeconds, PeakRSSBytes: au.PeakRSSBytes,
		Requests: counters["http_requests"], Errors4xx: counters["http_4xx"], Errors5xx: counters["http_5xx"]}
	if events > 0 {
		a.CPUSecondsPerOp = a.CPUSeconds / float64(events)
	}
	// an embedded database (SQLite) runs inside the application's own processes:
	// its CPU is in the application's, and there is no share to give
	if total := a.CPUSeconds + du.ServerCPUSeconds; total > 0 && !c.t.Embedded() && du.ServerCPUResolved {
		a.DBShare = du.ServerCPUSeconds / total
	}
	if qBefore >= 0 && qAfter >= qBefore && a.Requests > 0 {
		a.StatementsPerRequest = float64(qAfter-qBefore) / float64(a.Requests)
	}
	c.f.App = a
	db := fmt.Sprintf("the database %.1f ms (%.0f%% of the two)", 1000*du.ServerCPUSeconds/float64(max(events, 1)), 100*a.DBShare)
	if c.t.Embedded() {
		db = "the database inside it"
	}
	perRequest := ""
	if a.StatementsPerRequest > 0 {
		perRequest = fmt.Sprintf(", %.1f statements per request", a.StatementsPerRequest)
	}
	logf(c.Log, "%s: %.1f ms CPU per operation, %s, %d requests (%d 4xx, %d 5xx)%s",
		in.Name(), 1000*a.CPUSecondsPerOp, db, a.Requests, a.Errors4xx, a.Errors5xx, perRequest)
}

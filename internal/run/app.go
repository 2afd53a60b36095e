package run

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"shootout/internal/app"
	"shootout/internal/dialect"
	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// A cell with an application in the loop (--app redmine): the target
// starts as usual, the application's own migrations make the tables in its
// database, the workload's loader fills them, the application server
// starts inside the cell's cgroups (the memory cap covers both, as in the
// seeds' one VM), and the clients speak its HTTP API.

// appMemory is what the cell's application takes of its memory cap.
func appMemory(c result.Cell) (bytes int64, who string) {
	switch c.Conditions.App {
	case "redmine":
		return app.RedmineMemory(c.Clients), fmt.Sprintf("Redmine (puma, %d workers)", max(c.Clients, 1))
	}
	return 0, ""
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

// appWorkload is the cell's workload as an application's, or an error
// naming what is missing.
func (c *cellRun) appWorkload() (workload.AppWorkload, error) {
	aw, ok := c.w.(workload.AppWorkload)
	if !ok || aw.App() != c.cell.Conditions.App {
		return nil, fmt.Errorf("--app %s: workload %s does not run through it", c.cell.Conditions.App, c.cell.Workload)
	}
	return aw, nil
}

// loadApp is load for an application cell: migrations, then the dataset,
// then the application server.
func (c *cellRun) loadApp(ctx context.Context) error {
	aw, err := c.appWorkload()
	if err != nil {
		return err
	}
	if !c.t.Managed() {
		return fmt.Errorf("--app %s needs a target shootout starts (%s is not)", aw.App(), c.t.Name())
	}
	d, db := c.sqlInst.Dialect(), c.sqlInst.DB()
	workDir := filepath.Join(c.dataDir(), "app")
	if err := os.MkdirAll(workDir, 0o700); err != nil {
		return err
	}
	opt := app.RedmineOptions{WorkDir: workDir, Workers: c.cell.Clients, Flavor: d.Flavor, Conn: c.inst.Endpoint()}
	if c.group != nil {
		opt.Wrap = c.group.Wrap
	}
	rm, err := app.NewRedmine(opt)
	if err != nil {
		return err
	}
	c.app = rm
	c.later(func() {
		if err := rm.Stop(); err != nil {
			logf(c.Log, "stop Redmine: %v", err)
		}
	})
	logf(c.Log, "Redmine's migrations into %s", c.t.Name())
	if err := rm.Migrate(ctx); err != nil {
		return err
	}
	if d.Flavor == dialect.MySQL {
		if err := convertEngines(ctx, c, d.Engine); err != nil {
			return err
		}
	}
	if err := execAll(ctx, db, aw.AppPrepare(d, c.ds)); err != nil {
		return fmt.Errorf("empty what the migrations filled: %w", err)
	}
	progress, finish := c.progress(c.ds.LoadRows, "loading "+c.ds.Name+" rows into Redmine's tables")
	loadCtx, progress, watch := watchLoad(ctx, c.loadStallLimit, progress)
	stats, err := c.w.Load(loadCtx, db, d, c.ds, progress)
	finish()
	if stall := watch.stop(); stall != nil {
		return fmt.Errorf("load dataset %s into Redmine's tables: %w; %s", c.ds.Name, stall, stallEvidence(ctx, c.inst.PIDs(), db, d))
	}
	if err != nil {
		return fmt.Errorf("load dataset %s into Redmine's tables: %w", c.ds.Name, err)
	}
	c.f.Load.Rows = stats.Rows
	c.f.Load.Seconds = stats.Seconds
	if err := c.afterLoad(ctx, c.inst.PIDs(), db, d, aw.AppPostLoad(d, c.ds), time.Duration(stats.Seconds*float64(time.Second))); err != nil {
		return err
	}
	logf(c.Log, "starting Redmine: puma, %d workers, on the %s database", max(c.cell.Clients, 1), c.t.Name())
	if err := rm.Start(ctx); err != nil {
		return err
	}
	// a killed shootout's sweep ends puma and removes the instance
	pids := rm.PIDs()
	for i, pid := range pids {
		dir := ""
		if i == 0 {
			dir = rm.Dir()
		}
		c.Ledger.AddServer(pid, dir)
	}
	c.later(func() {
		for i, pid := range pids {
			dir := ""
			if i == 0 {
				dir = rm.Dir()
			}
			c.Ledger.ForgetServer(pid, dir)
		}
	})
	c.f.Target.App = rm.Version
	logf(c.Log, "Redmine serves on %s (%s)", rm.URL, rm.Version)
	return nil
}

// convertEngines moves the tables Redmine's migrations made to the
// target's storage engine (Rails creates them in the server's default).
func convertEngines(ctx context.Context, c *cellRun, engine string) error {
	db := c.sqlInst.DB()
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' AND LOWER(engine) <> ?", strings.ToLower(engine))
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	for _, n := range names {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER TABLE `%s` ENGINE=%s", n, engine)); err != nil {
			return fmt.Errorf("Redmine's table %s cannot move to %s: %w", n, engine, err)
		}
	}
	return nil
}

// questions is MariaDB's count of statements received, -1 elsewhere.
func questions(ctx context.Context, db *sql.DB, d dialect.Dialect) int64 {
	if d.Flavor != dialect.MySQL {
		return -1
	}
	var name string
	var n int64
	if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &n); err != nil {
		return -1
	}
	return n
}

// fillApp records the application server's CPU and memory beside the
// database server's, and what the database counted per HTTP request.
func (c *cellRun) fillApp(au, du metrics.Report, events int64, counters map[string]int64, qBefore, qAfter int64) {
	a := &result.App{Name: c.app.Version, CPUSeconds: au.ServerCPUSeconds, PeakRSSBytes: au.PeakRSSBytes,
		Requests: counters["http_requests"], Errors4xx: counters["http_4xx"], Errors5xx: counters["http_5xx"]}
	if events > 0 {
		a.CPUSecondsPerOp = a.CPUSeconds / float64(events)
	}
	// an embedded database (SQLite) runs inside Redmine's own processes:
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
	logf(c.Log, "Redmine: %.1f ms CPU per operation, %s, %d requests (%d 4xx, %d 5xx)%s",
		1000*a.CPUSecondsPerOp, db, a.Requests, a.Errors4xx, a.Errors5xx, perRequest)
}

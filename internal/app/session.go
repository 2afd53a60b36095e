package app

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// An application in the loop is a session that wraps its database's: the
// application's own migrations make the tables, the workload's loader
// fills them, the application server starts inside the cell's cgroups
// (the memory cap covers both, as in the seeds' one VM), and the clients
// speak its HTTP API. The runner finds an application by its --app name
// here and names none itself.

// Options are what a cell gives its application.
type Options struct {
	// Workload is the cell's; it runs through the application
	// (workload.AppWorkload) or the cell fails.
	Workload workload.Workload
	// DB is the workload's session on the application's database.
	DB *workload.SQLSession
	// Target names the database server, for the log lines.
	Target string
	// WorkDir is a private directory for the application's files.
	WorkDir string
	// Workers is how many requests it serves at once (the clients).
	Workers int
	// Wrap starts its processes inside the cell's cgroups.
	Wrap func(*exec.Cmd) error
	Log  io.Writer
	// Track records a process the application started, and the directory
	// it made, for the sweep after a SIGKILL; Untrack forgets them.
	Track, Untrack func(pid int, dir string)
}

// InLoop is the session of a cell with an application in the loop.
type InLoop interface {
	workload.Session
	workload.Finisher
	workload.SQLServer
	// Name is what log lines and notes call the application.
	Name() string
	// Version is the application's, for the cell's record.
	Version() string
	// PIDs are its server processes, for its CPU and memory figures.
	PIDs() []int
	// LogErrors are the exceptions it logged since it started.
	LogErrors() []string
}

// Kind is one application that can be in the loop.
type Kind struct {
	// Memory is what it takes of the cell's memory cap with clients
	// workers, and what to call it in the note.
	Memory func(clients int) (bytes int64, who string)
	Open   func(o Options) (InLoop, error)
}

var kinds = map[string]Kind{}

// Register adds an application (the --app value name).
func Register(name string, k Kind) {
	if _, dup := kinds[name]; dup {
		panic("application registered twice: " + name)
	}
	kinds[name] = k
}

// Lookup is the application called name.
func Lookup(name string) (Kind, error) {
	k, ok := kinds[name]
	if !ok {
		var names []string
		for n := range kinds {
			names = append(names, n)
		}
		sort.Strings(names)
		return Kind{}, fmt.Errorf("--app %s: no such application (valid: %s)", name, strings.Join(names, ", "))
	}
	return k, nil
}

func init() {
	Register("redmine", Kind{
		Memory: func(clients int) (int64, string) {
			return RedmineMemory(clients), fmt.Sprintf("Redmine (puma, %d workers)", max(clients, 1))
		},
		Open: openRedmine,
	})
}

// redmineSession is a workload's session through Redmine: the SQL
// session's Before and Check (invariants read from the database), the
// load through Redmine's migrations, the clients over its REST API.
type redmineSession struct {
	*workload.SQLSession
	aw   workload.AppWorkload
	rm   *Redmine
	o    Options
	pids []int
}

func openRedmine(o Options) (InLoop, error) {
	aw, ok := o.Workload.(workload.AppWorkload)
	if !ok || aw.App() != "redmine" {
		return nil, fmt.Errorf("--app redmine: workload %s does not run through it", o.Workload.Name())
	}
	d := o.DB.Dialect()
	rm, err := NewRedmine(RedmineOptions{WorkDir: o.WorkDir, Workers: o.Workers, Flavor: d.Flavor, Conn: o.DB.Endpoint(), Wrap: o.Wrap})
	if err != nil {
		return nil, err
	}
	return &redmineSession{SQLSession: o.DB, aw: aw, rm: rm, o: o}, nil
}

func (s *redmineSession) Name() string        { return "Redmine" }
func (s *redmineSession) Version() string     { return s.rm.Version }
func (s *redmineSession) PIDs() []int         { return s.rm.PIDs() }
func (s *redmineSession) LogErrors() []string { return s.rm.LogErrors() }

// Load runs Redmine's migrations, empties what they filled that the
// dataset brings, loads the rows into its tables, and starts puma; the
// migrations and puma's start are the load's Setup, not its time.
func (s *redmineSession) Load(ctx context.Context, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	setup := time.Now()
	logf(s.o.Log, "Redmine's migrations into %s", s.o.Target)
	if err := s.rm.Migrate(ctx); err != nil {
		return workload.LoadStats{}, err
	}
	d, db := s.Dialect(), s.DB()
	if d.Flavor == dialect.MySQL {
		if err := convertEngines(ctx, s, d.Engine); err != nil {
			return workload.LoadStats{}, err
		}
	}
	if err := workload.ExecAll(ctx, db, s.aw.AppPrepare(d, ds)); err != nil {
		return workload.LoadStats{}, fmt.Errorf("empty what the migrations filled: %w", err)
	}
	setupTook := time.Since(setup)
	stats, err := s.Workload().Load(ctx, db, d, ds, progress)
	if err != nil {
		return stats, fmt.Errorf("into Redmine's tables: %w", err)
	}
	started := time.Now()
	if err := s.start(ctx); err != nil {
		return stats, err
	}
	stats.SetupSeconds = (setupTook + time.Since(started)).Seconds()
	return stats, nil
}

// start starts puma and has its processes tracked for the sweep.
func (s *redmineSession) start(ctx context.Context) error {
	logf(s.o.Log, "starting Redmine: puma, %d workers, on the %s database", max(s.o.Workers, 1), s.o.Target)
	if err := s.rm.Start(ctx); err != nil {
		return err
	}
	s.pids = s.rm.PIDs()
	for i, pid := range s.pids {
		if s.o.Track != nil {
			s.o.Track(pid, s.dirOf(i))
		}
	}
	logf(s.o.Log, "Redmine serves on %s (%s)", s.rm.URL, s.rm.Version)
	return nil
}

// dirOf is the directory recorded with the i-th process: the instance's
// with the first (a killed shootout's sweep ends puma and removes it).
func (s *redmineSession) dirOf(i int) string {
	if i == 0 {
		return s.rm.Dir()
	}
	return ""
}

// FinishLoad moves sequences past the loaded ids (the migrations made
// the indexes).
func (s *redmineSession) FinishLoad(ctx context.Context, ds workload.Dataset, inFlight func(string)) error {
	return workload.ExecEach(ctx, s.DB(), s.aw.AppPostLoad(s.Dialect(), ds), inFlight)
}

// NewWorker is one client of Redmine's REST API.
func (s *redmineSession) NewWorker(ctx context.Context, ds workload.Dataset, client int) (workload.Worker, error) {
	return s.aw.NewAppWorker(s.rm.URL, ds, client)
}

// Close stops puma and removes the instance.
func (s *redmineSession) Close() error {
	err := s.rm.Stop()
	for i, pid := range s.pids {
		if s.o.Untrack != nil {
			s.o.Untrack(pid, s.dirOf(i))
		}
	}
	if err != nil {
		return fmt.Errorf("stop Redmine: %w", err)
	}
	return nil
}

// convertEngines moves the tables Redmine's migrations made to the
// target's storage engine (Rails creates them in the server's default).
func convertEngines(ctx context.Context, s workload.SQLServer, engine string) error {
	db := s.DB()
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

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

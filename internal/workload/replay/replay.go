// Package replay is a captured application (internal/capture) replayed
// as a workload: each captured session on a connection of its own, in
// its own order, transactions kept, under one of three timings; each
// statement fingerprint is an operation, and answers that differ from
// the capture's are counted per fingerprint.
package replay

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"shootout/internal/capture"
	"shootout/internal/dialect"
	"shootout/internal/workload"
	"shootout/internal/workload/dump"
)

// The timings of a replay.
const (
	Original = "original" // the captured timeline, each statement after the commits the capture saw end before it began
	Session  = "session"  // each session as fast as it can, in its order
	Commit   = "commit"   // a statement waits for the commits the capture saw end before it began
)

func init() {
	workload.Register(workload.Spec{Name: "replay", Flavors: []dialect.Flavor{dialect.MySQL, dialect.Postgres}, Own: &own,
		Description: "your application, captured (shootout capture): each session replayed on its own connection in its order, its answers compared with the capture's; param capture=FILE, dump=FILE for the data it started from",
		Params: []workload.Param{
			{Name: "capture", Kind: workload.Text, Help: "the capture, a file shootout capture wrote"},
			{Name: "dump", Kind: workload.Text, Help: "the data the capture started from, a mysqldump loaded first (MariaDB captures); default: the capture header's dump, beside the capture"},
			{Name: "timing", Kind: workload.Text, Valid: []string{Original, Session, Commit},
				Help: "original (the captured timeline, a command never before the commits the capture saw end before it), session (each session as fast as it can) or commit (as fast as the commits the capture saw end before a command allow); default: the most faithful the capture allows"},
			{Name: "speed", Kind: workload.Float, Min: 0.001, Help: "timing=original's timeline compressed N times"},
		},
		New: New,
	})
}

// own is `run --replay CAPTURE`. The data it started from is still
// `--param dump=FILE`: --dump is the dump workload's flag, given with
// its pages.
var own = workload.Own{
	Flags: []workload.OwnFlag{
		{Flag: "replay", Param: "capture", Help: "your application: a capture `FILE` (shootout capture) replayed on each target of its protocol, each session on its own connection in its order (--param timing=original|session|commit, dump=FILE; docs/workloads.md)"},
	},
	Together: "your capture", What: "a capture", Into: "MariaDB and PostgreSQL targets, those of its protocol", IntoExamples: "mariadb-innodb, postgres …",
}

// Workload is one capture, read and checked, and how to replay it.
type Workload struct {
	s         *script
	timing    string
	defaulted bool // timing is the capture's most faithful, not asked for
	speed     float64
	data      *dump.Workload // the data the capture started from, or nil

	mu      sync.Mutex
	db      *sql.DB
	clients int
	start   time.Time // the replay's zero on the captured timeline
	commits *commitOrder
	ends    *commitOrder    // the sessions' ends, in the order the capture saw them
	lag     []time.Duration // each replayed session's furthest behind its schedule
	first   map[string]string
	// begun are the sessions of each client's lanes it has begun, so a
	// client the driver connects again after a lost connection goes on
	// with the next session instead of sending its lanes again; given up
	// are the sessions left unfinished that way
	begun, ended map[int]int
	givenUp      []string
	types        []typeFigures // per kind of session, the closed workers' merged
}

// New reads the capture: a bad one is refused here, before anything
// starts.
func New(v workload.Values) (workload.Workload, error) {
	w := &Workload{timing: v.Text("timing"), speed: 1}
	file := v.Text("capture")
	if file == "" {
		return nil, fmt.Errorf("the replay workload needs a capture: --param capture=FILE (shootout capture --out FILE)")
	}
	s, err := readScript(file)
	if err != nil {
		return nil, err
	}
	w.s = s
	_, fast := v["speed"]
	if fast {
		w.speed = v.Float("speed")
	}
	if err := w.settle(fast); err != nil {
		return nil, err
	}
	if data := dataOf(v.Text("dump"), s); data != "" {
		if s.header.Protocol != capture.ProtoMySQL {
			return nil, fmt.Errorf("parameter dump=%s: a mysqldump loads into MariaDB; the capture %s is of %s", data, file, s.header.Protocol)
		}
		if w.data, err = dump.Data(data); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Fresh is the same capture and data for another cell, with nothing of
// a cell's replay.
func (w *Workload) Fresh() workload.Workload {
	f := &Workload{s: w.s, timing: w.timing, defaulted: w.defaulted, speed: w.speed}
	if w.data != nil {
		f.data = w.data.Fresh().(*dump.Workload)
	}
	return f
}

// dataOf is the dump to load first: the one asked for, else the one
// the capture's header names (a relative name is beside the capture, as
// the proxy writes it). A PostgreSQL capture's pg_dump is not taken by
// default: the loader reads mysqldump only.
func dataOf(asked string, s *script) string {
	d := s.header.Dump
	if asked != "" || d == nil || d.File == "" || s.header.Protocol != capture.ProtoMySQL {
		return asked
	}
	if filepath.IsAbs(d.File) {
		return d.File
	}
	return filepath.Join(filepath.Dir(s.file), d.File)
}

// settle picks the timing the capture allows when none was asked for:
// the captured timeline only when its times are finer than a second
// (a MariaDB log's are not: a second's statements would all start at
// once), and refuses a timing the capture has not the times for.
func (w *Workload) settle(fast bool) error {
	coarse := w.s.header.Timing == "second"
	if w.timing == "" {
		w.timing, w.defaulted = Session, true
		if w.s.timed && !coarse {
			w.timing = Original
		}
	}
	if w.timing == Original && !w.s.timed {
		return fmt.Errorf("parameter timing=original: the capture %s has commands without times; timing=session or commit", w.s.file)
	}
	if w.timing == Commit && !w.s.ended {
		return fmt.Errorf("parameter timing=commit: the capture %s has commands without end times (a general log's), so the order of its commits is unknown; timing=session or original", w.s.file)
	}
	if fast && w.timing != Original {
		return fmt.Errorf("parameter speed: only with timing=original (the timing is %s)", w.timing)
	}
	return nil
}

func (w *Workload) Name() string { return "replay" }

func (w *Workload) Description() string {
	return fmt.Sprintf("the capture %s (%s: %d sessions, %d commands, at most %d sessions open at once: --clients %d), timing=%s",
		filepath.Base(w.s.file), w.s.header.Protocol, len(w.s.sessions), w.s.steps, len(w.s.lanes), len(w.s.lanes), w.timing)
}

// PacedBy: a replay's order is its capture's, and its clients wait for
// each other's commits, so a client stopped by a count or a rate could
// leave the others waiting for good.
func (w *Workload) PacedBy() string {
	return "a replay runs as its capture ran (timing=" + w.timing + "), each session to its end"
}

// Ops are the statements' fingerprints, in the order the capture first
// sent them.
func (w *Workload) Ops() []string { return w.s.ops }

// DefaultDataset is the capture's file name: its data is the capture's
// own (and the dump's).
func (w *Workload) DefaultDataset() string { return filepath.Base(w.s.file) }

func (w *Workload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	if spec != w.DefaultDataset() {
		return workload.Dataset{}, fmt.Errorf("dataset %q: a replay's data is its capture's, %s", spec, w.DefaultDataset())
	}
	ds := workload.Dataset{Name: spec, Seed: seed}
	if w.data != nil {
		ds, _ = w.data.Dataset(w.data.DefaultDataset(), seed)
		ds.Name = spec
	}
	return ds, nil
}

var servers = map[dialect.Flavor]string{dialect.MySQL: "MariaDB or MySQL", dialect.Postgres: "PostgreSQL", dialect.SQLite: "SQLite"}

// SpeaksDialect: a capture replays on servers of its protocol only.
func (w *Workload) SpeaksDialect(d dialect.Dialect) error {
	want := dialect.MySQL
	if w.s.header.Protocol == capture.ProtoPostgres {
		want = dialect.Postgres
	}
	if d.Flavor != want {
		return fmt.Errorf("--param capture: %s:1: a capture of the %s protocol replays on %s targets, not on %s", w.s.file, w.s.header.Protocol, servers[want], servers[d.Flavor])
	}
	return nil
}

// SetClients is told the clients before they connect; it makes the
// replay end when every session is done, the duration only a cap.
func (w *Workload) SetClients(n int) {
	w.mu.Lock()
	w.clients = n
	w.mu.Unlock()
}

func (w *Workload) CheckSchema(d dialect.Dialect, ds workload.Dataset) ([]string, error) {
	if w.data == nil {
		return nil, nil
	}
	return w.data.CheckSchema(d, ds)
}

// Schema is the dump's tables: a capture without one makes its own.
func (w *Workload) Schema(d dialect.Dialect, ds workload.Dataset) []string {
	if w.data == nil {
		return nil
	}
	return w.data.Schema(d, ds)
}

func (w *Workload) PostLoad(d dialect.Dialect, ds workload.Dataset) []string {
	if w.data == nil {
		return nil
	}
	return w.data.PostLoad(d, ds)
}

func (w *Workload) Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	if w.data == nil {
		return workload.LoadStats{}, nil
	}
	return w.data.Load(ctx, db, d, ds, progress)
}

// Loaded is never true: each replay starts from the data, as the
// capture did.
func (w *Workload) Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (bool, error) {
	return false, nil
}

// Before keeps the pool for the sessions' own connections and resets
// what a replay shares.
func (w *Workload) Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (workload.State, error) {
	// a session's connection must be new, not one the load left with its
	// session settings: no idle connection is kept from here on
	db.SetMaxIdleConns(0)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.db, w.start, w.lag, w.first = db, time.Time{}, nil, map[string]string{}
	w.begun, w.ended, w.givenUp, w.types = map[int]int{}, map[int]int{}, nil, nil
	w.commits = newCommitOrder(w.s.commits)
	w.ends = newCommitOrder(len(w.s.sessions))
	return workload.State{}, nil
}

// zero is the replay's start on the captured timeline: the first
// client to ask sets it for all.
func (w *Workload) zero() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.start.IsZero() {
		w.start = time.Now()
	}
	return w.start
}

// note keeps the first message of a kind of difference per fingerprint.
func (w *Workload) note(key, msg string) {
	w.mu.Lock()
	if _, ok := w.first[key]; !ok {
		w.first[key] = msg
	}
	w.mu.Unlock()
}

func (w *Workload) behind(d time.Duration) {
	w.mu.Lock()
	w.lag = append(w.lag, d)
	w.mu.Unlock()
}

// NewWorker is a client replaying its lane's sessions, the first on
// conn, each next on a new connection.
func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	w.mu.Lock()
	n, db := w.clients, w.db
	w.mu.Unlock()
	if n <= 0 {
		n = 1
	}
	if w.timing == Commit && n < len(w.s.lanes) {
		if conn != nil {
			conn.Close()
		}
		return nil, fmt.Errorf("%w: timing=commit replays each of the sessions open at once on a client of its own: the capture %s has %d open at once, the cell %d clients; --clients %d",
			workload.ErrBadInput, filepath.Base(w.s.file), len(w.s.lanes), n, len(w.s.lanes))
	}
	var mine []*sess
	for i := client; i < len(w.s.lanes); i += n {
		mine = append(mine, w.s.lanes[i]...)
	}
	return &worker{w: w, db: db, first: conn, client: client, sessions: mine, cur: w.resume(client, mine),
		inOrder: w.timing == Original && w.s.ended && n >= len(w.s.lanes), counters: map[string]int64{}}, nil
}

// resume is where a client's new worker starts: after the sessions its
// earlier workers began; one they began and did not end lost its
// connection and is given up, as the driver gives up an operation whose
// connection was lost.
func (w *Workload) resume(client int, mine []*sess) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, e := w.begun[client], w.ended[client]
	if b > e {
		w.givenUp = append(w.givenUp, fmt.Sprint(mine[b-1].id))
		w.ended[client] = b
		// the sessions after it must not wait for it, nor the commands
		// after them for the commits it never sent
		gone := mine[b-1]
		w.ends.mark(gone.ended)
		for i := range gone.steps {
			if c := gone.steps[i].commit; c >= 0 {
				w.commits.mark(c)
			}
		}
	}
	return b
}

// mark counts a client's session begun or ended.
func (w *Workload) mark(client int, begun bool) {
	w.mu.Lock()
	if begun {
		w.begun[client]++
	} else {
		w.ended[client]++
	}
	w.mu.Unlock()
}

// Package workload defines what a workload is and keeps the registry of them.
//
// A workload knows its schema per dialect, how to make and load its dataset,
// what one client does for one operation, and what must hold afterwards. It
// never times, sleeps or prints: the driver owns time and concurrency.
package workload

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/hist"
	"shootout/internal/proto"
)

// Dataset is a resolved dataset: a name as the user wrote it, a size the
// workload understands, and the seed its rows are generated from.
type Dataset struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
	Seed int64  `json:"seed"`
	// LoadRows is how many rows loading writes in all tables, for the
	// progress bar, when it is not Rows.
	LoadRows int64 `json:"-"`
	// LoadInBytes says LoadRows counts bytes of input, not rows (a dump,
	// whose rows are not known before it is read).
	LoadInBytes bool `json:"-"`
}

// Outcome is what one operation did, for sysbench-style counts. On error
// Reads, Writes and Other are the statements this attempt had answered
// before the one that failed (not those of earlier attempts: the driver
// counts each attempt's), as sysbench counts them.
type Outcome struct {
	Op     int // index into Workload.Ops()
	Reads  int32
	Writes int32
	Other  int32
}

// Worker is one client's operation loop state, bound to one connection.
type Worker interface {
	// Do runs one operation. On error the transaction, if any, may be open;
	// the driver calls Abort before retrying. On error the Outcome's Op still
	// names the operation that failed, so errors are counted per operation.
	Do(ctx context.Context) (Outcome, error)
	// Abort rolls back whatever Do left open after an error.
	Abort(ctx context.Context)
	// Counters returns what committed operations changed, for invariants
	// (e.g. rows inserted). Only committed work may be counted. The key
	// LogicalBytes, when present, feeds the result's write amplification.
	Counters() map[string]int64
	Close() error
}

// LogicalBytes is the counter of the bytes of row data that committed
// operations inserted, updated or deleted, each workload counting them as
// docs/results.md says. The runner divides the server's bytes written by it
// (write amplification), so a workload that cannot count them leaves it out.
const LogicalBytes = "logical_bytes"

// LoadStats describes a dataset load.
type LoadStats struct {
	Rows    int64            `json:"rows"`
	Seconds float64          `json:"seconds"`
	Tables  map[string]int64 `json:"tables,omitempty"`
	// TableSeconds is the time spent inserting each table's rows.
	TableSeconds map[string]float64 `json:"table_seconds,omitempty"`
	// Reused: the server already held the dataset, loaded by shootout,
	// and nothing was written.
	Reused bool `json:"-"`
	// Notes say what the schema was changed to fit the server
	// (SchemaChecker's), SchemaDDL how many statements made it.
	Notes     []string `json:"-"`
	SchemaDDL int      `json:"-"`
	// SetupSeconds is what the load spent besides making the dataset
	// (an application's migrations and start): not the load's time.
	SetupSeconds float64 `json:"-"`
}

// Progress is told how many rows were loaded since its last call.
type Progress func(rows int64)

// State is what a workload records before a run to check invariants after.
type State map[string]int64

// Invariants is the verdict of Check.
type Invariants struct {
	OK       bool     `json:"ok"`
	Checked  []string `json:"checked"`
	Failures []string `json:"failures"`
	// Drift says where the run's work departed from the workload's
	// definition without breaking an invariant (lists shorter than asked,
	// updates that found nothing to change), which makes cells do
	// different work per operation.
	Drift []string `json:"drift,omitempty"`
	// Plans are the target's EXPLAIN of operations, by operation name,
	// for the report to show beside their times (a replay's top
	// fingerprints)
	Plans map[string]string `json:"plans,omitempty"`
	// SessionTypes are the run's figures per kind of session (a replay's:
	// the capture's user, database and program), for the report to
	// compare them as it compares operations
	SessionTypes []SessionType `json:"session_types,omitempty"`
}

// SessionType is one kind of session's part of a run: the sessions
// begun and their timed statements over the whole run.
type SessionType struct {
	Type       string        `json:"type"`
	Sessions   int64         `json:"sessions"`
	Statements hist.Snapshot `json:"statements"`
}

// Workload is one registered workload, configured with its parameters.
// What it does on a server is its Session there (Open): on SQL the
// SQLSession of its SQL methods, on another protocol its Native session.
type Workload interface {
	Name() string
	Description() string
	// Ops names the operations; Outcome.Op indexes this slice.
	Ops() []string
	// Dataset resolves a dataset spec such as "small" or "1000000".
	Dataset(spec string, seed int64) (Dataset, error)
	// DefaultDataset is the spec used when none is given.
	DefaultDataset() string
}

// SQL is a workload's few SQL-specific steps, each given the instance's
// pool or one of its connections and the server's dialect: what
// SQLSession runs.
type SQL interface {
	Workload
	// Schema is the DDL run before loading; PostLoad runs after (secondary
	// indexes built after the load, as sysbench does).
	Schema(d dialect.Dialect, ds Dataset) []string
	PostLoad(d dialect.Dialect, ds Dataset) []string
	// Load fills the tables created by Schema.
	Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset, progress Progress) (LoadStats, error)
	// Loaded reports whether db already holds exactly this dataset, so an
	// external server prepared earlier is reused rather than reloaded.
	Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset) (bool, error)
	// NewWorker prepares one client on its own connection.
	NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds Dataset, client int) (Worker, error)
	// Before records the state that Check compares against.
	Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset) (State, error)
	// Check verifies the invariants after a run given the committed counters.
	Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset, before State, counters map[string]int64) Invariants
}

// NativeWorkload is a workload that also speaks protocols other than
// SQL (every workload speaks SQL through the methods of Workload).
type NativeWorkload interface {
	Workload
	// Speaks is nil when the workload, as configured, runs on protocol
	// p (with SQL dialect d), else why not in a line that names the
	// parameter to change (kv's path=handler is MariaDB's).
	Speaks(p proto.Name, d dialect.Dialect) error
	// Native is the workload's session on one server of a native
	// protocol, with the protocol's own client instead of a pool.
	Native(ep proto.Endpoint) (Session, error)
}

// Speaks is nil when w runs on protocol p (with SQL dialect d), else why
// not.
func Speaks(w Workload, p proto.Name, d dialect.Dialect) error {
	if nw, ok := w.(NativeWorkload); ok {
		return nw.Speaks(p, d)
	}
	if p == proto.SQL {
		if dc, ok := w.(DialectChecker); ok {
			return dc.SpeaksDialect(d)
		}
		return nil
	}
	return fmt.Errorf("workload %s speaks SQL only, not %s", w.Name(), p)
}

// DialectChecker is a SQL workload that, as configured, runs on some
// servers only (oltp_point_select's client=libmariadb on MariaDB).
type DialectChecker interface {
	// SpeaksDialect is nil when the workload runs on d, else why not in
	// a line that names the parameter to change.
	SpeaksDialect(d dialect.Dialect) error
}

// Versioned is a workload whose definition has changed in ways that change
// its figures: its version is part of every cell's conditions, so --resume
// reruns and compare refuses to pair cells measured by an older definition.
type Versioned interface {
	Version() string
}

// VersionOf is w's version, or "" for a workload that has none.
func VersionOf(w Workload) string {
	if v, ok := w.(Versioned); ok {
		return v.Version()
	}
	return ""
}

// MemoryReader is a workload whose reads must all be served from memory
// (kv, as seed 003 allowed no disk IO): each cell proves it from the
// kernel's counters or is marked "not in memory".
type MemoryReader interface {
	ReadsFromMemory() bool
}

// ErrClientDone is what a Worker's Do returns when its client has done
// all the work it was given (kv: its slice of the ids, every round): the
// driver stops that client, and the run ends when the last one stops.
var ErrClientDone = errors.New("client done")

// AgentReady is a SQL workload whose clients can run in agent processes
// (--agents, or the one that holds an embedded database under limits),
// each agent with a pool of its own: InAgents is nil when, split across
// that many agents, its workers need nothing but the cell's parameters,
// dataset and seed and their client ids — nothing shared among the
// clients of the cell (a counter they draw from) or handed to Check (the
// rows they saw wrong), which another process would not see — else why
// not, in a line that names the parameter to change. A write whose
// answer was lost with its connection (a doubt) is not handed back by an
// agent: Check then fails as it would for a write it cannot explain.
type AgentReady interface {
	InAgents(agents int) error
}

// AgentBefore is an AgentReady workload whose workers use what Before
// read (redmine: the supply of New issues): an agent runs Before on its
// own pool before its clients connect.
type AgentBefore interface {
	AgentBefore()
}

// SelfPaced is a workload whose own order paces its operations (a
// replay follows its capture, and its clients wait for each other's
// commits): a rate or a count of operations would stop a client that
// others wait for, so the plan refuses --rate, --ops and --reps, saying
// PacedBy as the reason.
type SelfPaced interface {
	PacedBy() string
}

// ClientsAware is a workload that shares its work out among the clients
// (kv's slices of ids): the run tells it how many before they connect.
type ClientsAware interface {
	SetClients(n int)
}

// ErrBadInput marks an error in what the user gave that only a server can
// find (a statement of their queries file that does not prepare): the run
// stops at the first cell that finds it, as for any bad input.
var ErrBadInput = errors.New("bad input")

// SchemaChecker is a workload whose tables a target may refuse (a user's
// dump moved to an engine that cannot hold a column): the run asks it
// before creating anything, fails the cell with its error, and records
// its notes (what was changed to fit the engine).
type SchemaChecker interface {
	CheckSchema(d dialect.Dialect, ds Dataset) (notes []string, err error)
}

// AppWorkload is a workload that can also run through a real application
// server (--app): the application's own migrations make the tables, the
// workload's loader fills them, and its clients speak the application's
// HTTP API instead of SQL.
type AppWorkload interface {
	// App names the application it drives (the --app value).
	App() string
	// AppPrepare runs after the application's migrations, before Load:
	// it empties the tables the migrations filled that Load fills too.
	AppPrepare(d dialect.Dialect, ds Dataset) []string
	// AppPostLoad runs after Load (sequences moved past the loaded ids;
	// the migrations made the indexes).
	AppPostLoad(d dialect.Dialect, ds Dataset) []string
	// NewAppWorker is one client of the application served at base.
	NewAppWorker(base string, ds Dataset, client int) (Worker, error)
}

// ErrorPolicy is a Worker that decides itself which failed operations run
// again (a workload matching another tool's semantics, such as sysbench's
// --mysql-ignore-errors). Without it, the error classes that are
// Retryable run again, at most max_retries times.
type ErrorPolicy interface {
	// Restart reports whether the operation that failed with err runs
	// again, and whether without a limit on the attempts.
	Restart(err error) (again, unlimited bool)
}

// RetryNoter is a workload whose workers' ErrorPolicy, as configured,
// can run a failed operation again without limit: RetryNote says so in
// a clause the dry run's line on retries ends with ("unless …"), "" when
// this configuration keeps to max_retries.
type RetryNoter interface {
	RetryNote() string
}

// Reconnecter is a Worker that wants a new connection now and then
// (sysbench's --reconnect): after each operation the driver asks, and if
// so closes the worker and connects a new one, counted as a reconnect.
type Reconnecter interface {
	WantsReconnect() bool
}

// Looper is a Worker that can also run its operations in a loop of its
// own, outside Go's scheduler (kv's and oltp_point_select's client=
// libmariadb: a C thread per client). The driver runs a closed loop
// bounded by time with Loop, and anything else (a rate, a count of
// operations) with Do.
type Looper interface {
	Worker
	// Loop runs operations until until, until ctx ends, or one fails:
	// then its error is returned with the failed operation's Outcome,
	// and the next Loop starts with that operation again. Each finished
	// operation is told to rec as it is known.
	Loop(ctx context.Context, until time.Time, rec LoopRecorder) (Outcome, error)
}

// LoopRecorder takes what a Looper's loop did.
type LoopRecorder interface {
	// Finished is one operation that succeeded and what it took.
	Finished(out Outcome, took time.Duration)
	// InFlight is when the operation the loop waits on began
	// (UnixNano), 0 for none: the stall watch reads it.
	InFlight(since int64)
}

// OwnClients is a SQL workload whose clients, as configured, connect by
// themselves outside database/sql (client=libmariadb: a loop in C per
// client): SQLSession gives them the server's endpoint instead of a
// connection of the pool.
type OwnClients interface {
	OwnClients() bool
	// NewOwnWorker is one such client of the server at ep (an endpoint
	// that is not Known: the server cannot say where it is, as an
	// external PostgreSQL given by URL).
	NewOwnWorker(ctx context.Context, ep proto.Endpoint, ds Dataset, client int) (Worker, error)
}

// Abandoner is a Worker whose operation spans several transactions and can
// resume after a retryable error: Do picks up at the failed step. When the
// driver gives up on the operation (retries exhausted, or the run ended
// during a retry) it calls Abandon, and the next Do starts a new one.
type Abandoner interface {
	Abandon()
}

// StatementStat is one statement's timings as its client saw them.
type StatementStat struct {
	Name    string `json:"name"`
	Query   string `json:"query"`
	Calls   int64  `json:"calls"`
	TotalNs int64  `json:"total_ns"`
	MaxNs   int64  `json:"max_ns"`
}

// StatementTimer is a Worker that times each statement it runs, so a
// report can name the statements that took the time on each server (the
// same figure on every target, embedded SQLite included, which
// performance_schema and pg_stat_statements cannot give).
type StatementTimer interface {
	Statements() []StatementStat
}

// MergeStatements sums per-client statement timings by name, largest total
// first.
func MergeStatements(lists ...[]StatementStat) []StatementStat {
	by := map[string]*StatementStat{}
	var order []string
	for _, l := range lists {
		for _, s := range l {
			m := by[s.Name]
			if m == nil {
				c := s
				by[s.Name] = &c
				order = append(order, s.Name)
				continue
			}
			m.Calls += s.Calls
			m.TotalNs += s.TotalNs
			m.MaxNs = max(m.MaxNs, s.MaxNs)
		}
	}
	out := make([]StatementStat, 0, len(order))
	for _, n := range order {
		out = append(out, *by[n])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TotalNs > out[j].TotalNs })
	return out
}

// StatementTimes are a client's timings per named statement, kept in the
// order the statements were first sent: what a StatementTimer reports.
type StatementTimes struct {
	byName map[string]*StatementClock
	order  []*StatementClock
}

// StatementClock times one named statement.
type StatementClock struct {
	name, text            string
	calls, totalNs, maxNs int64
}

// Of is the clock of the statement called name (text is kept from its
// first call).
func (t *StatementTimes) Of(name, text string) *StatementClock {
	if t.byName == nil {
		t.byName = map[string]*StatementClock{}
	}
	c := t.byName[name]
	if c == nil {
		c = &StatementClock{name: name, text: text}
		t.byName[name] = c
		t.order = append(t.order, c)
	}
	return c
}

// Record counts one call that started at start and ended now.
func (c *StatementClock) Record(start time.Time) {
	ns := int64(time.Since(start))
	c.calls++
	c.totalNs += ns
	c.maxNs = max(c.maxNs, ns)
}

// Stats are the statements that ran, their text on one line.
func (t *StatementTimes) Stats() []StatementStat {
	var out []StatementStat
	for _, c := range t.order {
		if c.calls == 0 {
			continue
		}
		out = append(out, StatementStat{Name: c.name, Query: strings.Join(strings.Fields(c.text), " "), Calls: c.calls, TotalNs: c.totalNs, MaxNs: c.maxNs})
	}
	return out
}

// Package kv is seed 003's key-value reads: a table keyvalue(id, value1,
// value2), a file of random existing ids split across the clients, each
// client reading its slice a number of rounds by primary key, and every
// row read checked against what was loaded.
package kv

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/units"
	"shootout/internal/workload"
)

func init() {
	workload.Register(workload.Spec{Name: "kv",
		Description: "key-value reads (seed 003): random primary-key reads of keyvalue(id, value1, value2) from an ids file split across the clients, R rounds each; path=prepared|text|handler|batch",
		Params: []workload.Param{
			{Name: "path", Kind: workload.Text, Valid: []string{"prepared", "text", "handler", "get", "batch"}, Axis: true,
				Help: "prepared, text, handler (MariaDB's HANDLER … READ), get (a native server's single read) or batch (batch ids a round trip)"},
			{Name: "rounds", Kind: workload.Int, Default: "10", Min: 1, Help: "rounds each client reads its share of the ids"},
			{Name: "batch", Kind: workload.Int, Default: "100", Min: 1, Help: "ids a round trip of path=batch"},
			{Name: "warmup", Kind: workload.Int, Default: "1", Help: "rounds read before the measured window"},
			{Name: "ids", Kind: workload.Text, Help: "a file of ids, one a line (default: id_count random ids)"},
			{Name: "id_count", Kind: workload.Int, Default: "1000000", Min: 1, Help: "random ids drawn when no ids file is given"},
			{Name: "client", Kind: workload.Text, Default: "go", Valid: []string{"go", clientC},
				Help: "go (the Go drivers) or " + clientC + " (path=prepared on MariaDB: a loop in C per client)"},
		},
		New: func(v workload.Values) (workload.Workload, error) {
			o := options{Path: v.Text("path"), Rounds: v.Int("rounds"), Batch: v.Int("batch"), Warmup: v.Int("warmup"),
				IDsFile: v.Text("ids"), IDs: v.Int("id_count"), Client: v.Text("client")}
			w := &Workload{opt: o, ids: map[string][]int64{}}
			if o.IDsFile != "" {
				ids, err := readIDs(o.IDsFile)
				if err != nil {
					return nil, err
				}
				w.userIDs = ids
			}
			return w, nil
		},
	})
}

// sqlPaths and nativePaths are the access paths each kind of server has;
// with none asked, a SQL server reads by prepared statement and a native
// one by its single get.
var (
	sqlPaths    = []string{"prepared", "text", "handler", "batch"}
	nativePaths = []string{"get", "batch"}
)

// Path is the access path on protocol p.
func (w *Workload) Path(p proto.Name) string {
	switch {
	case w.opt.Path != "":
		return w.opt.Path
	case p == proto.SQL:
		return "prepared"
	}
	return "get"
}

// Speaks refuses, before anything starts, a path the server has no way
// to take.
func (w *Workload) Speaks(p proto.Name, d dialect.Dialect) error {
	path := w.Path(p)
	switch {
	case p == proto.SQL && !slices.Contains(sqlPaths, path):
		return fmt.Errorf("kv path=%s is the native servers' single read; a SQL server reads by prepared, text, handler or batch", path)
	case p == proto.SQL && path == "handler" && d.Flavor != dialect.MySQL:
		return fmt.Errorf("kv path=handler is MariaDB's HANDLER … READ; %s has none (use prepared, text or batch)", d.Flavor)
	case p == proto.SQL && path == "handler" && d.Engine == "rocksdb":
		// MariaDB answers HANDLER … OPEN on a MyRocks table with error 1031
		return fmt.Errorf("kv path=handler: MyRocks has no HANDLER interface (use prepared, text or batch)")
	case p != proto.SQL && !slices.Contains(nativePaths, path):
		return fmt.Errorf("kv path=%s is SQL's; a %s server reads by get or batch", path, p)
	case w.opt.Client == clientC && (p != proto.SQL || d.Flavor != dialect.MySQL):
		name := string(p)
		if p == proto.SQL {
			name = string(d.Flavor)
		}
		return fmt.Errorf("kv client=%s speaks to MariaDB and MySQL only, not %s; use client=go", clientC, name)
	case w.opt.Client == clientC && path != "prepared":
		return fmt.Errorf("kv client=%s reads by path=prepared only, not %s; use client=go", clientC, path)
	}
	return nil
}

type options struct {
	Path          string
	Client        string // "go" or clientC
	Rounds, Batch int
	IDs, Warmup   int
	IDsFile       string
}

// Workload is the kv reads, configured.
type Workload struct {
	opt     options
	userIDs []int64

	mu      sync.Mutex
	clients int
	ids     map[string][]int64 // per dataset: the ids the clients read
	// rows that came back wrong or not at all
	wrong   []string
	wrongsN int64
}

// Fresh is w as configured, with the ids file it read, for another cell.
func (w *Workload) Fresh() workload.Workload {
	return &Workload{opt: w.opt, userIDs: w.userIDs, ids: map[string][]int64{}}
}

func (w *Workload) Name() string { return "kv" }
func (w *Workload) Description() string {
	if w.opt.Path == "" {
		return "key-value reads by primary key (seed 003), each server's point read"
	}
	return "key-value reads by primary key (seed 003), path " + w.opt.Path
}
func (w *Workload) Ops() []string          { return []string{"read"} }
func (w *Workload) DefaultDataset() string { return "10000000" }

// Version names the reads' definition. 2: the warm-up reads the rows,
// not only the key's index, and on SQLite every client's connection.
func (w *Workload) Version() string { return "2" }

func (w *Workload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	n, err := parseRows(spec)
	if err != nil {
		return workload.Dataset{}, err
	}
	for i, id := range w.userIDs {
		if id < 1 || id > n {
			return workload.Dataset{}, fmt.Errorf("--param ids=%s:%d: id %d is not in the dataset (ids 1 to %d)", w.opt.IDsFile, i+1, id, n)
		}
	}
	return workload.Dataset{Name: spec, Rows: n, Seed: seed}, nil
}

func parseRows(spec string) (int64, error) {
	n, err := units.ParseCount(spec)
	if err != nil {
		return 0, fmt.Errorf("dataset %q: want a number of rows such as 100000, 100k or 10M (the seed had 105M)", spec)
	}
	return n, nil
}

// readIDs reads an ids file: one id per line.
func readIDs(path string) ([]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--param ids: %w", err)
	}
	defer f.Close()
	var ids []int64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		id, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--param ids=%s:%d: %q is not an id (one whole number per line)", path, line, t)
		}
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--param ids=%s: %w", path, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("--param ids=%s: no ids", path)
	}
	return ids, nil
}

// idsFor are the ids the clients read: the user's, or id_count drawn from
// the seed (uniform over the table, repeats allowed, as random reads are).
func (w *Workload) idsFor(ds workload.Dataset) []int64 {
	if w.userIDs != nil {
		return w.userIDs
	}
	key := fmt.Sprintf("%d/%d", ds.Rows, ds.Seed)
	w.mu.Lock()
	defer w.mu.Unlock()
	if ids := w.ids[key]; ids != nil {
		return ids
	}
	rng := rand.New(rand.NewPCG(uint64(ds.Seed), 3))
	ids := make([]int64, w.opt.IDs)
	for i := range ids {
		ids[i] = 1 + rng.Int64N(ds.Rows)
	}
	w.ids[key] = ids
	return ids
}

// The values are a pure function of the id, so every read can be checked.
func value1(id int64) int64 {
	x := uint64(id) * 0x9E3779B97F4A7C15
	return int64(x>>33) % 1_000_000_000
}

func value2(id int64) float64 {
	x := uint64(id)*0xBF58476D1CE4E5B9 + 7
	return float64(x>>40) / 1024
}

var table = dialect.Table{Name: "keyvalue", Columns: []dialect.Column{{Name: "value1", Type: "int"}, {Name: "value2", Type: "float"}}}

func (w *Workload) Schema(d dialect.Dialect, ds workload.Dataset) []string {
	out := []string{"DROP TABLE IF EXISTS keyvalue"}
	// id BIGINT: the seed's 105 M ids, and the statement the seed wrote
	id := "id BIGINT NOT NULL PRIMARY KEY"
	return append(out, fmt.Sprintf("CREATE TABLE keyvalue (\n  %s,\n  value1 %s,\n  value2 %s\n)%s", id, d.ColumnType("int"), d.ColumnType("float"), d.TableOptions()))
}

func (w *Workload) PostLoad(d dialect.Dialect, ds workload.Dataset) []string { return nil }

const loadBatch = 50_000

func (w *Workload) Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	n := int((ds.Rows + loadBatch - 1) / loadBatch)
	batches := make([]func() workload.Batch, n)
	for b := range batches {
		first := int64(b)*loadBatch + 1
		last := min(first+loadBatch-1, ds.Rows)
		batches[b] = func() workload.Batch {
			rows := make([][]any, 0, last-first+1)
			for id := first; id <= last; id++ {
				rows = append(rows, []any{id, value1(id), value2(id)})
			}
			return workload.Batch{Table: "keyvalue", Cols: []string{"id", "value1", "value2"}, Rows: rows}
		}
	}
	return workload.LoadBatches(ctx, db, d, batches, 4, progress)
}

func (w *Workload) Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (bool, error) {
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM keyvalue").Scan(&n); err != nil {
		return false, nil
	}
	return n == ds.Rows, nil
}

// CheckSchema refuses a path the target does not speak: HANDLER is
// MariaDB's.
func (w *Workload) CheckSchema(d dialect.Dialect, ds workload.Dataset) ([]string, error) {
	return nil, w.Speaks(proto.SQL, d)
}

// Before warms the cache as the seed's warm-up rounds did: every id of the
// file read warmup times, in batches, before the measured window. Where
// the cache is each connection's own (SQLite), each client's connection
// also warms its slice before the window (NewWorker).
func (w *Workload) Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (workload.State, error) {
	w.resetMisses()
	if _, err := w.warm(ctx, db, d, w.idsFor(ds)); err != nil {
		return nil, err
	}
	return workload.State{}, nil
}

// warm reads ids warmup times, 1,000 to a statement, and says how many
// rows it found.
func (w *Workload) warm(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, d dialect.Dialect, ids []int64) (found int64, err error) {
	for r := 0; r < w.opt.Warmup; r++ {
		for from := 0; from < len(ids); from += 1000 {
			chunk := ids[from:min(from+1000, len(ids))]
			args := make([]any, len(chunk))
			for i, id := range chunk {
				args[i] = id
			}
			// COUNT(value1), not COUNT(*): a count of ids alone is
			// answered from the primary key's index where the rows are
			// elsewhere (MyISAM, SQLite, PostgreSQL), which warms no row
			stmt := d.Bind("SELECT COUNT(value1) FROM keyvalue WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",") + ")")
			var n int64
			if err := q.QueryRowContext(ctx, stmt, args...).Scan(&n); err != nil {
				return found, fmt.Errorf("warm-up: %w", err)
			}
			found += n
		}
	}
	return found, nil
}

// Check: every id read returned its row with the values loaded.
func (w *Workload) Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	inv := workload.Invariants{OK: true}
	w.mu.Lock()
	wrong, n := append([]string(nil), w.wrong...), w.wrongsN
	w.mu.Unlock()
	if n > 0 {
		inv.OK = false
		inv.Failures = append(inv.Failures, fmt.Sprintf("%d of %d reads did not return the row loaded: %s", n, counters["rows_read"]+n, strings.Join(wrong, "; ")))
	} else {
		inv.Checked = append(inv.Checked, fmt.Sprintf("%d reads each returned its id's row with the values loaded", counters["rows_read"]))
	}
	return inv
}

func (w *Workload) miss(msg string) {
	w.mu.Lock()
	w.wrongsN++
	if len(w.wrong) < 3 {
		w.wrong = append(w.wrong, msg)
	}
	w.mu.Unlock()
}

// SetClients splits the ids into one slice per client.
func (w *Workload) SetClients(n int) {
	w.mu.Lock()
	w.clients = n
	w.mu.Unlock()
}

func (w *Workload) resetMisses() {
	w.mu.Lock()
	w.wrong, w.wrongsN = nil, 0
	w.mu.Unlock()
}

// sliceOf is client's share of the ids and how many reads it makes.
func (w *Workload) sliceOf(ds workload.Dataset, client int) ([]int64, int) {
	ids := w.idsFor(ds)
	w.mu.Lock()
	clients := max(w.clients, 1)
	w.mu.Unlock()
	from, to := len(ids)*client/clients, len(ids)*(client+1)/clients
	return ids[from:to], (to - from) * w.opt.Rounds
}

// dialectNone is Check's dialect on a native server: it reads nothing.
var dialectNone dialect.Dialect

// ReadsFromMemory: seed 003 allowed no disk IO during the reads.
func (w *Workload) ReadsFromMemory() bool { return true }

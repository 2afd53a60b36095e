// Package dump is the user's own shop: their mysqldump loaded into each
// MySQL-compatible target with its tables moved to the target's engine,
// and their own pages (a queries file) walked as siege walks urls.txt.
// Seed 001's lesson was that only one's own data and pages can tell.
package dump

import (
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/mysqldump"
	"shootout/internal/workload"
)

func init() {
	workload.Register(workload.Spec{Name: "dump", Flavors: []dialect.Flavor{dialect.MySQL}, Own: &own,
		Description: "your own data and pages: a mysqldump (param file=, or --dump) loaded into each MariaDB engine, your pages (param queries=, or --queries) walked as siege walks urls.txt",
		Params: []workload.Param{
			{Name: "file", Kind: workload.Text, Help: "your mysqldump or mariadb-dump, .sql or .sql.gz (--dump)"},
			{Name: "queries", Kind: workload.Text, Help: "your pages, a YAML file (--queries)"},
			{Name: "order", Kind: workload.Text, Default: "list", Valid: []string{"list", "random"}, Help: "list (the pages in turn) or random (drawn by their hits)"},
			{Name: "load_parallel", Kind: workload.Int, Default: "4", Min: 1, Max: 64, Help: "tables loaded side by side"},
		},
		New: func(v workload.Values) (workload.Workload, error) {
			w := &Workload{file: v.Text("file"), queriesFile: v.Text("queries"), random: v.Text("order") == "random", loadParallel: v.Int("load_parallel")}
			if w.file == "" || w.queriesFile == "" {
				return nil, errors.New("the dump workload needs your dump and your pages: --dump FILE.sql[.gz] --queries PAGES.yaml")
			}
			if err := w.read(); err != nil {
				return nil, err
			}
			return w, nil
		},
	})
}

// own are run's --dump and --queries: the user's data and pages in place
// of a study's workload, on the targets a mysqldump loads into.
var own = workload.Own{
	Flags: []workload.OwnFlag{
		{Flag: "dump", Param: "file", Help: "your own data: a mysqldump or mariadb-dump `FILE`.sql[.gz], loaded into each MariaDB target with its tables moved to the target's engine (with --queries)"},
		{Flag: "queries", Param: "queries", Help: "your own pages: a YAML `FILE` of named pages, each a list of statements with parameters drawn from the loaded data (with --dump; docs/workloads.md)"},
	},
	Together: "your data and your pages", What: "a mysqldump", Into: "MariaDB targets", IntoExamples: "mariadb-innodb, mariadb-myisam …",
}

// Workload is a user's dump and pages, read and checked.
type Workload struct {
	file, queriesFile string
	// sqlBytes is the dump's SQL text in bytes (gunzipped), which the
	// load's progress counts
	sqlBytes     int64
	random       bool
	loadParallel int

	tables []*mysqldump.CreateTable
	byName map[string]*mysqldump.CreateTable
	pages  []page
	hits   int

	mu      sync.Mutex
	loaded  map[string]int64 // rows the dump's INSERTs gave, per table
	skipped int
	values  map[string]*column
}

// Fresh is w as configured, with the dump and pages it read and checked,
// for another cell: the dump is read once per plan, not once per cell.
func (w *Workload) Fresh() workload.Workload {
	return &Workload{file: w.file, queriesFile: w.queriesFile, random: w.random, loadParallel: w.loadParallel,
		tables: w.tables, byName: w.byName, pages: w.pages, hits: w.hits}
}

func (w *Workload) Name() string { return "dump" }
func (w *Workload) Description() string {
	return "your dump " + filepath.Base(w.file) + " and your pages " + filepath.Base(w.queriesFile)
}
func (w *Workload) Ops() []string { return []string{"page"} }

// DefaultDataset is the dump's file name: the data is the dump.
func (w *Workload) DefaultDataset() string { return filepath.Base(w.file) }

func (w *Workload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	if spec != filepath.Base(w.file) {
		return workload.Dataset{}, fmt.Errorf("dataset %q: the dump workload's data is the dump, %s", spec, filepath.Base(w.file))
	}
	return workload.Dataset{Name: spec, Seed: seed, LoadRows: w.sqlBytes, LoadInBytes: true}, nil
}

// open reads the dump, gunzipped when it is .gz.
func (w *Workload) open() (io.ReadCloser, error) {
	f, err := os.Open(w.file)
	if err != nil {
		return nil, fmt.Errorf("--dump: %w", err)
	}
	if !strings.HasSuffix(w.file, ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--dump %s: not gzip: %w", w.file, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// read checks the dump (every statement splits, every CREATE TABLE
// parses) and the pages against its tables, before anything starts.
func (w *Workload) read() error {
	r, err := w.open()
	if err != nil {
		return err
	}
	defer r.Close()
	s := mysqldump.NewScanner(r, w.file)
	w.byName = map[string]*mysqldump.CreateTable{}
	statements := 0
	for s.Scan() {
		st := s.Statement()
		statements++
		if !mysqldump.IsCreateTable(st.Text) {
			if statements == 1 && !looksLikeSQL(st.Text) {
				return fmt.Errorf("--dump %s:%d: not SQL (%.40q): want mysqldump or mariadb-dump output", w.file, st.Line, st.Text)
			}
			continue
		}
		ct, err := mysqldump.ParseCreateTable(st.Text)
		if err != nil {
			return fmt.Errorf("--dump %s:%d: %v", w.file, st.Line, err)
		}
		w.tables = append(w.tables, ct)
		w.byName[strings.ToLower(ct.Name)] = ct
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("--dump %w", err)
	}
	w.sqlBytes = s.Bytes
	if len(w.tables) == 0 {
		return fmt.Errorf("--dump %s: no CREATE TABLE: want mysqldump or mariadb-dump output with the tables' structure", w.file)
	}
	if w.queriesFile == "" {
		return nil // the data alone, for another workload's statements (Data)
	}
	return w.readPages()
}

var sqlStart = regexp.MustCompile(`(?i)^(/\*!|SET|DROP|CREATE|INSERT|REPLACE|LOCK|USE|ALTER|START|BEGIN)`)

func looksLikeSQL(s string) bool { return sqlStart.MatchString(s) }

// engineOf is the target's engine and options after ENGINE=.
func engineOf(d dialect.Dialect) (string, string, error) {
	if d.Flavor != dialect.MySQL || d.Engine == "" {
		return "", "", fmt.Errorf("a mysqldump loads into MariaDB or MySQL targets (mariadb-innodb, mariadb-myisam …), not %s", d.Flavor)
	}
	return d.Engine, d.EngineOptions, nil
}

// CheckSchema moves every table to the target's engine and says what was
// changed, or refuses naming the table and the reason.
func (w *Workload) CheckSchema(d dialect.Dialect, ds workload.Dataset) ([]string, error) {
	engine, opts, err := engineOf(d)
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, t := range w.tables {
		mv, err := t.MoveTo(engine, opts, true)
		if err != nil {
			return nil, err
		}
		notes = append(notes, mv.Notes...)
	}
	return notes, nil
}

func (w *Workload) moved(d dialect.Dialect) []mysqldump.Moved {
	engine, opts, err := engineOf(d)
	if err != nil {
		return nil // CheckSchema refused the cell before this
	}
	var out []mysqldump.Moved
	for _, t := range w.tables {
		if mv, err := t.MoveTo(engine, opts, true); err == nil {
			out = append(out, mv)
		}
	}
	return out
}

func (w *Workload) Schema(d dialect.Dialect, ds workload.Dataset) []string {
	var out []string
	for _, mv := range w.moved(d) {
		out = append(out, "DROP TABLE IF EXISTS `"+strings.ReplaceAll(mv.Table, "`", "``")+"`", mv.Create)
	}
	return out
}

// PostLoad adds the secondary keys the load went without.
func (w *Workload) PostLoad(d dialect.Dialect, ds workload.Dataset) []string {
	var out []string
	for _, mv := range w.moved(d) {
		if mv.AddKeys != "" {
			out = append(out, mv.AddKeys)
		}
	}
	return out
}

var insertInto = regexp.MustCompile("(?is)^(?:INSERT|REPLACE)\\s+(?:(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|IGNORE)\\s+)*(?:INTO\\s+)?(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)")

// Load sends the dump's INSERTs, a table's in the dump's order on one of
// loadParallel connections, tables side by side; progress is in bytes of
// the dump read. Everything but the tables' rows (the dump's SET and LOCK
// statements, views, triggers, routines) is left out and counted.
func (w *Workload) Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	start := time.Now()
	r, err := w.open()
	if err != nil {
		return workload.LoadStats{}, err
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := &dumpLoad{w: w, ctx: ctx, cancel: cancel, rows: map[string]int64{}, secs: map[string]float64{}}
	queues := make([]chan mysqldump.Statement, w.loadParallel)
	for i := range queues {
		queues[i] = make(chan mysqldump.Statement, 4)
		conn, err := loaderConn(ctx, db)
		if err != nil {
			return workload.LoadStats{}, err
		}
		l.wg.Add(1)
		go l.run(queues[i], conn)
	}
	s := mysqldump.NewScanner(r, w.file)
	skipped := l.feed(s, queues, progress)
	for _, q := range queues {
		close(q)
	}
	l.wg.Wait()
	if err := s.Err(); err != nil && l.firstErr == nil {
		l.firstErr = err
	}
	var total int64
	for _, c := range l.rows {
		total += c
	}
	w.mu.Lock()
	w.loaded, w.skipped = l.rows, skipped
	w.mu.Unlock()
	return workload.LoadStats{Rows: total, Seconds: time.Since(start).Seconds(), Tables: l.rows, TableSeconds: l.secs}, l.firstErr
}

// dumpLoad is one Load's loaders and what they loaded.
type dumpLoad struct {
	w        *Workload
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	firstErr error
	rows     map[string]int64
	secs     map[string]float64
}

// fail keeps the first error and stops every loader.
func (l *dumpLoad) fail(err error) {
	l.mu.Lock()
	if l.firstErr == nil {
		l.firstErr = err
		l.cancel()
	}
	l.mu.Unlock()
}

// loaderConn is a loader's connection, set as the dump itself sets its
// session: its rows are consistent already.
func loaderConn(ctx context.Context, db *sql.DB) (*sql.Conn, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range []string{"SET NAMES utf8mb4", "SET SESSION unique_checks = 0", "SET SESSION foreign_key_checks = 0", "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	return conn, nil
}

// insertTable is the lower-cased table an INSERT statement's match names.
func insertTable(m []string) string {
	return strings.ToLower(strings.ReplaceAll(strings.Trim(m[1], "`"), "``", "`"))
}

// run sends the statements of q on conn, counting each table's rows and
// time; after a failure it only drains q.
func (l *dumpLoad) run(q chan mysqldump.Statement, conn *sql.Conn) {
	defer l.wg.Done()
	defer conn.Close()
	for st := range q {
		if l.ctx.Err() != nil {
			continue
		}
		table := insertTable(insertInto.FindStringSubmatch(st.Text))
		t0 := time.Now()
		res, err := conn.ExecContext(l.ctx, st.Text)
		if err != nil {
			l.fail(fmt.Errorf("%s:%d: %w", l.w.file, st.Line, err))
			continue
		}
		got, _ := res.RowsAffected()
		l.mu.Lock()
		l.rows[table] += got
		l.secs[table] += time.Since(t0).Seconds()
		l.mu.Unlock()
	}
}

// feed reads the dump and hands each table's INSERTs to its loader's
// queue; it returns how many statements it left out.
func (l *dumpLoad) feed(s *mysqldump.Scanner, queues []chan mysqldump.Statement, progress workload.Progress) (skipped int) {
	var read int64
	for s.Scan() {
		st := s.Statement()
		if progress != nil {
			progress(s.Bytes - read)
			read = s.Bytes
		}
		m := insertInto.FindStringSubmatch(st.Text)
		if m == nil {
			if !mysqldump.IsCreateTable(st.Text) {
				skipped++
			}
			continue
		}
		table := insertTable(m)
		if l.w.byName[table] == nil {
			l.fail(fmt.Errorf("%s:%d: INSERT into %s, which the dump does not create", l.w.file, st.Line, table))
			break
		}
		select {
		case queues[shard(table, len(queues))] <- st:
		case <-l.ctx.Done():
		}
		if l.ctx.Err() != nil {
			break
		}
	}
	return skipped
}

func shard(table string, n int) int {
	h := 0
	for i := 0; i < len(table); i++ {
		h = h*31 + int(table[i])
	}
	if h < 0 {
		h = -h
	}
	return h % n
}

// Loaded is never true: a dump is loaded into a database shootout made.
func (w *Workload) Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (bool, error) {
	return false, nil
}

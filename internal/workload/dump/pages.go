package dump

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// A queries file is the user's pages, each a list of statements with
// parameters drawn from the loaded data:
//
//	pages:
//	  - name: product card
//	    weight: 30            # hits; order=random draws by them
//	    statements:
//	      - SELECT * FROM products WHERE id = {random products.id}
//	      - SELECT id FROM products WHERE price BETWEEN {range products.price} LIMIT 20
//	      - SELECT id FROM products WHERE name LIKE {prefix products.name}
//
// {random T.C} is a value of column C of table T, {range T.C} two values
// lo AND hi, {prefix T.C} the first letters of a value and %.
type page struct {
	name       string
	weight     int
	line       int
	statements []statement
}

type statement struct {
	text   string // with ? for each parameter
	line   int
	params []param
	writes bool
}

type param struct {
	kind, table, column string
}

var placeholder = regexp.MustCompile(`\{\s*(\w+)\s+([A-Za-z0-9_$]+)\.([A-Za-z0-9_$]+)\s*\}`)
var unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found`)
var anyBrace = regexp.MustCompile(`\{[^}]*\}`)
var writesRE = regexp.MustCompile(`(?i)^\s*(INSERT|UPDATE|DELETE|REPLACE)\b`)

type pagesFile struct {
	Pages []struct {
		Name       string      `yaml:"name"`
		Weight     int         `yaml:"weight"`
		Statements []yaml.Node `yaml:"statements"`
	} `yaml:"pages"`
}

// readPages reads and checks the queries file against the dump's tables:
// unknown fields, a page without statements, a placeholder of an unknown
// kind or naming a column the dump does not have, all name the line.
func (w *Workload) readPages() error {
	b, err := os.ReadFile(w.queriesFile)
	if err != nil {
		return fmt.Errorf("--queries: %w", err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("--queries %s: %v", w.queriesFile, err)
	}
	var pf pagesFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&pf); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			if m := unknownField.FindStringSubmatch(te.Errors[0]); m != nil {
				return fmt.Errorf("--queries %s:%s: unknown field %q (a page has name, weight and statements)", w.queriesFile, m[1], m[2])
			}
			return fmt.Errorf("--queries %s: %s", w.queriesFile, te.Errors[0])
		}
		return fmt.Errorf("--queries %s: %s", w.queriesFile, strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: ")), " "))
	}
	if len(pf.Pages) == 0 {
		return fmt.Errorf("--queries %s: no pages (want pages: - name: …, statements: [SQL, …])", w.queriesFile)
	}
	lines := pageLines(&root)
	for i, p := range pf.Pages {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		at := fmt.Sprintf("--queries %s:%d: page %q", w.queriesFile, line, p.Name)
		if p.Name == "" {
			return fmt.Errorf("--queries %s:%d: a page without a name", w.queriesFile, line)
		}
		if len(p.Statements) == 0 {
			return fmt.Errorf("%s has no statements", at)
		}
		if p.Weight < 0 {
			return fmt.Errorf("%s: weight %d is negative", at, p.Weight)
		}
		pg := page{name: p.Name, weight: max(p.Weight, 1), line: line}
		for _, n := range p.Statements {
			if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
				return fmt.Errorf("--queries %s:%d: page %q: a statement is one SQL string", w.queriesFile, n.Line, p.Name)
			}
			st, err := w.parseStatement(n.Value)
			if err != nil {
				return fmt.Errorf("--queries %s:%d: page %q: %v", w.queriesFile, n.Line, p.Name, err)
			}
			st.line = n.Line
			pg.statements = append(pg.statements, st)
		}
		w.pages = append(w.pages, pg)
		w.hits += pg.weight
	}
	return nil
}

// pageLines are the lines the pages start on.
func pageLines(root *yaml.Node) []int {
	if len(root.Content) == 0 {
		return nil
	}
	doc := root.Content[0]
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "pages" {
			var out []int
			for _, p := range doc.Content[i+1].Content {
				out = append(out, p.Line)
			}
			return out
		}
	}
	return nil
}

func (w *Workload) parseStatement(text string) (statement, error) {
	st := statement{writes: writesRE.MatchString(text)}
	var bad error
	st.text = placeholder.ReplaceAllStringFunc(text, func(m string) string {
		p := placeholder.FindStringSubmatch(m)
		kind, table, column := strings.ToLower(p[1]), p[2], p[3]
		t := w.byName[strings.ToLower(table)]
		switch {
		case kind != "random" && kind != "range" && kind != "prefix":
			bad = fmt.Errorf("%s: want {random T.C}, {range T.C} or {prefix T.C}", m)
		case t == nil:
			bad = fmt.Errorf("%s: the dump has no table %s", m, table)
		case !hasColumn(t.Columns, column):
			bad = fmt.Errorf("%s: table %s has no column %s", m, table, column)
		}
		if t != nil {
			table = t.Name
		}
		st.params = append(st.params, param{kind: kind, table: table, column: column})
		if kind == "range" {
			return "? AND ?"
		}
		return "?"
	})
	if bad != nil {
		return st, bad
	}
	if left := anyBrace.FindString(st.text); left != "" {
		return st, fmt.Errorf("%s is not a parameter: want {random T.C}, {range T.C} or {prefix T.C}", left)
	}
	return st, nil
}

func hasColumn(defs []string, column string) bool {
	for _, d := range defs {
		name := strings.Fields(strings.TrimSpace(d))[0]
		if strings.EqualFold(strings.Trim(name, "`"), column) {
			return true
		}
	}
	return false
}

// column is a sample of a column's values, drawn once per cell.
type column struct {
	values []string
}

// Before checks that every table holds the rows its INSERTs gave, that
// every statement prepares on the server (naming its page and line when
// one does not), and samples the columns the parameters draw from.
func (w *Workload) Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset) (workload.State, error) {
	st := workload.State{}
	for _, t := range w.tables {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+t.Name+"`").Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, err)
		}
		st[strings.ToLower(t.Name)] = n
	}
	for _, p := range w.pages {
		for _, s := range p.statements {
			ps, err := db.PrepareContext(ctx, s.text)
			if err != nil {
				return nil, fmt.Errorf("%w: --queries %s:%d: page %q: the statement does not prepare: %v", workload.ErrBadInput, w.queriesFile, s.line, p.name, err)
			}
			ps.Close()
		}
	}
	values := map[string]*column{}
	for _, p := range w.pages {
		for _, s := range p.statements {
			for _, pr := range s.params {
				key := strings.ToLower(pr.table + "." + pr.column)
				if values[key] != nil {
					continue
				}
				c, err := sample(ctx, db, pr.table, pr.column)
				if err != nil {
					return nil, err
				}
				values[key] = c
			}
		}
	}
	w.mu.Lock()
	w.values = values
	w.mu.Unlock()
	return st, nil
}

// sample draws up to 1000 values of a column, in random order.
func sample(ctx context.Context, db *sql.DB, table, col string) (*column, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT `%s` FROM `%s` WHERE `%s` IS NOT NULL ORDER BY RAND() LIMIT 1000", col, table, col))
	if err != nil {
		return nil, fmt.Errorf("sample %s.%s: %w", table, col, err)
	}
	defer rows.Close()
	c := &column{}
	for rows.Next() {
		var v sql.RawBytes
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		c.values = append(c.values, string(v))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(c.values) == 0 {
		return nil, fmt.Errorf("%s.%s has no values to draw parameters from", table, col)
	}
	return c, nil
}

// Check: where no page writes, every table still holds the rows its
// INSERTs gave.
func (w *Workload) Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	inv := workload.Invariants{OK: true}
	w.mu.Lock()
	loaded := w.loaded
	w.mu.Unlock()
	writes := false
	for _, p := range w.pages {
		for _, s := range p.statements {
			writes = writes || s.writes
		}
	}
	for _, t := range w.tables {
		key := strings.ToLower(t.Name)
		if before[key] != loaded[key] && loaded != nil {
			inv.OK = false
			inv.Failures = append(inv.Failures, fmt.Sprintf("%s held %d rows after the load, the dump's INSERTs gave %d", t.Name, before[key], loaded[key]))
		}
		if writes {
			continue
		}
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+t.Name+"`").Scan(&n); err != nil || n != before[key] {
			inv.OK = false
			inv.Failures = append(inv.Failures, fmt.Sprintf("%s: %d rows after a run of reads, %d before (%v)", t.Name, n, before[key], err))
		}
	}
	if inv.OK {
		inv.Checked = append(inv.Checked, fmt.Sprintf("%d tables hold the rows the dump gave", len(w.tables)))
		if !writes {
			inv.Checked = append(inv.Checked, "the pages, which only read, changed no table")
		}
	}
	inv.Checked = append(inv.Checked, fmt.Sprintf("%d pages rendered", counters["pages"]))
	if n := w.skipped; n > 0 {
		inv.Checked = append(inv.Checked, fmt.Sprintf("%d statements of the dump besides its tables and rows (SET, LOCK, views, triggers, routines) were not run", n))
	}
	return inv
}

type worker struct {
	w     *Workload
	conn  *sql.Conn
	rng   *rand.Rand
	next  int
	times workload.StatementTimes
	pages int64
}

func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	seed := uint64(time.Now().UnixNano()) ^ uint64(client)<<32
	return &worker{w: w, conn: conn, rng: rand.New(rand.NewPCG(seed, uint64(ds.Seed)))}, nil
}

func (wk *worker) Do(ctx context.Context) (workload.Outcome, error) {
	p := &wk.w.pages[wk.next%len(wk.w.pages)]
	if wk.w.random {
		n := wk.rng.IntN(wk.w.hits)
		for i := range wk.w.pages {
			if n -= wk.w.pages[i].weight; n < 0 {
				p = &wk.w.pages[i]
				break
			}
		}
	}
	out := workload.Outcome{}
	for _, s := range p.statements {
		args := wk.args(s)
		clock := wk.times.Of(p.name+"/"+fmt.Sprint(s.line), s.text)
		start := time.Now()
		if s.writes {
			if _, err := wk.conn.ExecContext(ctx, s.text, args...); err != nil {
				return out, fmt.Errorf("page %s (line %d): %w", p.name, s.line, err)
			}
			out.Writes++
		} else {
			rows, err := wk.conn.QueryContext(ctx, s.text, args...)
			if err != nil {
				return out, fmt.Errorf("page %s (line %d): %w", p.name, s.line, err)
			}
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return out, fmt.Errorf("page %s (line %d): %w", p.name, s.line, err)
			}
			out.Reads++
		}
		clock.Record(start)
	}
	wk.next++
	wk.pages++
	return out, nil
}

// args draws the statement's parameters from the sampled values.
func (wk *worker) args(s statement) []any {
	var args []any
	wk.w.mu.Lock()
	values := wk.w.values
	wk.w.mu.Unlock()
	for _, p := range s.params {
		vs := values[strings.ToLower(p.table+"."+p.column)].values
		pick := func() string { return vs[wk.rng.IntN(len(vs))] }
		switch p.kind {
		case "random":
			args = append(args, pick())
		case "range":
			a, b := pick(), pick()
			if lessValue(b, a) {
				a, b = b, a
			}
			args = append(args, a, b)
		case "prefix":
			v := []rune(pick())
			args = append(args, string(v[:min(len(v), 1+wk.rng.IntN(3))])+"%")
		}
	}
	return args
}

// lessValue orders two values as numbers when both are, else as text.
func lessValue(a, b string) bool {
	var x, y float64
	if _, err := fmt.Sscan(a, &x); err == nil {
		if _, err := fmt.Sscan(b, &y); err == nil {
			return x < y
		}
	}
	return a < b
}

func (wk *worker) Abort(ctx context.Context) {}
func (wk *worker) Counters() map[string]int64 {
	return map[string]int64{"pages": wk.pages}
}
func (wk *worker) Statements() []workload.StatementStat { return wk.times.Stats() }
func (wk *worker) Close() error                         { return wk.conn.Close() }

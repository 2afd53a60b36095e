package workload

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"shootout/internal/dialect"
)

// MarkerTable is where shootout records, in a database it did not start,
// each table it created and the dataset it holds. A table the workload
// would create, drop or fill that is missing from it belongs to someone
// else, and shootout writes nothing.
const MarkerTable = "shootout_dataset"

// Claim decides, on an external database, whether a workload's dataset can
// be reused, must be (re)loaded into tables shootout owns, or must not be
// touched at all because a table of that name is not shootout's.
type Claim struct {
	// Reuse is true when every table is shootout's, holds this very
	// dataset, and the workload finds it untouched.
	Reuse bool
	db    *sql.DB
	d     dialect.Dialect
	fp    string
	names []string
}

// a quoted name is taken whole (a user's dump may name a table my-table)
var ddlTable = regexp.MustCompile("(?i)\\b(?:CREATE|DROP|ALTER)\\s+TABLE\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?(?:`([^`]+)`|\"([^\"]+)\"|([A-Za-z_][A-Za-z0-9_]*))")

// TablesOf names every table the statements create, drop or alter.
func TablesOf(stmts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range stmts {
		for _, m := range ddlTable.FindAllStringSubmatch(q, -1) {
			if n := strings.ToLower(m[1] + m[2] + m[3]); !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Fingerprint names a dataset and the schema it was loaded with, so a
// database prepared with another seed, size or table layout is reloaded.
// The workload's name is left out: sysbench's oltp_* workloads share one
// dataset, as sysbench's prepare does.
func Fingerprint(w SQL, d dialect.Dialect, ds Dataset) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00", ds.Name, ds.Seed, ds.Rows)
	for _, q := range append(w.Schema(d, ds), w.PostLoad(d, ds)...) {
		fmt.Fprintf(h, "%s\x00", q)
	}
	return fmt.Sprintf("%s/seed%d/%s", ds.Name, ds.Seed, hex.EncodeToString(h.Sum(nil)[:6]))
}

// ClaimExternal reads the database before anything is written to it. It
// fails, naming the table and the database, when a table the workload
// would create already exists and shootout did not create it; it writes
// nothing in that case. Otherwise the caller reuses the data (Reuse) or
// calls Begin, loads, and calls Done.
func ClaimExternal(ctx context.Context, db *sql.DB, d dialect.Dialect, w SQL, ds Dataset) (*Claim, error) {
	c := &Claim{db: db, d: d, fp: Fingerprint(w, d, ds), names: TablesOf(append(w.Schema(d, ds), w.PostLoad(d, ds)...))}
	dbName, existing, err := listTables(ctx, db, d)
	if err != nil {
		return nil, fmt.Errorf("list the tables of the external database before writing: %w", err)
	}
	marked := map[string]string{}
	if existing[MarkerTable] {
		rows, err := db.QueryContext(ctx, "SELECT table_name, fingerprint FROM "+MarkerTable)
		if err != nil {
			return nil, fmt.Errorf("read %s in database %s: %w", MarkerTable, dbName, err)
		}
		defer rows.Close()
		for rows.Next() {
			var t, fp string
			if err := rows.Scan(&t, &fp); err != nil {
				return nil, fmt.Errorf("read %s in database %s: %w", MarkerTable, dbName, err)
			}
			marked[strings.ToLower(t)] = fp
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	allReady := true
	for _, t := range c.names {
		fp, ours := marked[t]
		if existing[t] && !ours {
			return nil, fmt.Errorf("external database %s already has a table %s that shootout did not create (it is not in %s): nothing was written; give shootout an empty database, or one it prepared", dbName, t, MarkerTable)
		}
		if !existing[t] || fp != c.fp {
			allReady = false
		}
	}
	if allReady {
		loaded, err := w.Loaded(ctx, db, d, ds)
		if err != nil {
			return nil, err
		}
		c.Reuse = loaded
	}
	return c, nil
}

// Begin records the workload's tables as shootout's before they are
// created, marked as loading: a load that is interrupted leaves tables
// the next run knows it may drop.
func (c *Claim) Begin(ctx context.Context) error {
	ddl := "CREATE TABLE IF NOT EXISTS " + MarkerTable + " (table_name VARCHAR(64) NOT NULL PRIMARY KEY, fingerprint VARCHAR(200) NOT NULL)"
	if _, err := c.db.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("create %s: %w", MarkerTable, err)
	}
	return c.mark(ctx, "loading "+c.fp)
}

// Done marks the tables as holding the dataset, for reuse by later runs.
func (c *Claim) Done(ctx context.Context) error { return c.mark(ctx, c.fp) }

func (c *Claim) mark(ctx context.Context, fp string) error {
	for _, t := range c.names {
		del := c.d.Bind("DELETE FROM " + MarkerTable + " WHERE table_name = ?")
		ins := c.d.Bind("INSERT INTO " + MarkerTable + " (table_name, fingerprint) VALUES (?, ?)")
		if _, err := c.db.ExecContext(ctx, del, t); err != nil {
			return fmt.Errorf("update %s: %w", MarkerTable, err)
		}
		if _, err := c.db.ExecContext(ctx, ins, t, fp); err != nil {
			return fmt.Errorf("update %s: %w", MarkerTable, err)
		}
	}
	return nil
}

// listTables names the database and the tables in it (lower case).
func listTables(ctx context.Context, db *sql.DB, d dialect.Dialect) (string, map[string]bool, error) {
	var nameQ, listQ string
	switch d.Flavor {
	case dialect.MySQL:
		nameQ = "SELECT DATABASE()"
		listQ = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
	case dialect.Postgres:
		nameQ = "SELECT current_database()"
		listQ = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
	default:
		nameQ = "SELECT 'main'"
		listQ = "SELECT name FROM sqlite_master WHERE type = 'table'"
	}
	var name sql.NullString
	if err := db.QueryRowContext(ctx, nameQ).Scan(&name); err != nil {
		return "", nil, err
	}
	rows, err := db.QueryContext(ctx, listQ)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return "", nil, err
		}
		tables[strings.ToLower(t)] = true
	}
	return name.String, tables, rows.Err()
}

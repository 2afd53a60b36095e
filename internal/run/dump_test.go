package run

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// TestARealDumpOnEveryEngine loads a real mariadb-dump (the help tables
// MariaDB's own setup fills, Aria in the dump) into MyISAM, Aria, InnoDB
// and MyRocks, with every table moved to the engine, and walks a queries
// file over it; MEMORY refuses the dump naming the table and the column.
func TestARealDumpOnEveryEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	dump, _ := filepath.Abs("../workload/dump/testdata/mariadb-help.sql.gz")
	pages, _ := filepath.Abs("../workload/dump/testdata/help-pages.yaml")
	engines := map[string]string{"mariadb-myisam": "MyISAM", "mariadb-aria": "Aria", "mariadb-innodb": "InnoDB", "mariadb-rocksdb": "ROCKSDB", "mariadb-memory": "MEMORY"}
	names := []string{"mariadb-myisam", "mariadb-aria", "mariadb-innodb", "mariadb-rocksdb", "mariadb-memory"}
	loaded := make([]map[string]int64, len(names))
	// the engines side by side (the group ends when they all have), each
	// server on every core (--cpus all: a cell placed on its own CPUs
	// moves the whole test process, which two cells cannot share); what
	// is asserted is each cell's pages, rows and tables, no figure
	t.Run("engines", func(t *testing.T) {
		for i, name := range names {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				loaded[i] = dumpOn(t, name, engines[name], dump, pages)
			})
		}
	})
	// rows per table in the dump, as mariadb-install-db filled them: the
	// same on every engine that holds them
	first := -1
	for i, tables := range loaded {
		switch {
		case tables == nil:
		case first < 0:
			first = i
		default:
			for tb, n := range loaded[first] {
				if tables[tb] != n {
					t.Errorf("%s: %s has %d rows, %s had %d", names[i], tb, tables[tb], names[first], n)
				}
			}
		}
	}
}

// dumpOn loads the help tables' dump on one engine and reads its pages,
// returning the rows per table loaded (nil for an engine that cannot
// hold them).
func dumpOn(t *testing.T, name, engine, dump, pages string) map[string]int64 {
	requireTargets(t, name)
	p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: []string{"dump"}, Datasets: []string{"mariadb-help.sql.gz"},
		Params: map[string]string{"file": dump, "queries": pages}, Clients: []int{4}, Reps: 10, Interval: "0s", Trim: new(float64), CPUs: "all"}
	var wrongEngine []string
	r := &Runner{beforeCheck: func(ctx context.Context, db *sql.DB) error {
		rs, err := db.QueryContext(ctx, "SELECT table_name, engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'help%'")
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var tb, eng string
			if err := rs.Scan(&tb, &eng); err != nil {
				return err
			}
			if !strings.EqualFold(eng, engine) {
				wrongEngine = append(wrongEngine, tb+" is "+eng)
			}
		}
		return rs.Err()
	}}
	got := runPlan(t, p, r, 1)
	f := got[0]
	if name == "mariadb-memory" {
		if f.OK() || !strings.Contains(f.Status, "table help_category: MEMORY cannot hold column url (TEXT)") {
			t.Fatalf("MEMORY: %s, want the table and column it cannot hold", f.Status)
		}
		return nil
	}
	if !f.OK() {
		t.Fatalf("cell: %s; invariants %+v", f.Status, f.Invariants)
	}
	if f.Throughput.Events != 40 || f.Counters["pages"] != 40 || f.Throughput.Reads < 40 {
		t.Errorf("%d pages (%d reads), want 4 clients x 10", f.Throughput.Events, f.Throughput.Reads)
	}
	if f.Load.Tables["help_topic"] < 500 || f.Load.Tables["help_relation"] < 500 {
		t.Errorf("loaded %v: the help tables hold hundreds of rows", f.Load.Tables)
	}
	if len(wrongEngine) > 0 {
		t.Errorf("tables not moved to %s: %v", engine, wrongEngine)
	}
	return f.Load.Tables
}

// A statement of the queries file that the server cannot prepare is bad
// input: the first cell names its page and line, and no other cell runs.
func TestAStatementThatDoesNotPrepareStopsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	requireTargets(t, "mariadb-myisam", "mariadb-innodb")
	dump, _ := filepath.Abs("../workload/dump/testdata/mariadb-help.sql.gz")
	dir := t.TempDir()
	pages := filepath.Join(dir, "pages.yaml")
	os.WriteFile(pages, []byte("pages:\n  - name: fine\n    statements:\n      - SELECT 1\n  - name: typo\n    statements:\n      - SELECT nme FROM help_topic WHERE name = {random help_topic.name}\n"), 0o644)
	p := &plan.Plan{Name: "it", Targets: []string{"mariadb-myisam", "mariadb-innodb"}, Workloads: []string{"dump"}, Datasets: []string{"mariadb-help.sql.gz"},
		Params: map[string]string{"file": dump, "queries": pages}, Clients: []int{1}, Reps: 2, Interval: "0s"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t)}
	sum, err := r.Matrix(context.Background(), res)
	if !errors.Is(err, workload.ErrBadInput) || !strings.Contains(err.Error(), `pages.yaml:7: page "typo": the statement does not prepare`) || !strings.Contains(err.Error(), "nme") {
		t.Fatalf("matrix error %v, want the page, line and the server's reason", err)
	}
	if sum.Ran != 1 {
		t.Fatalf("%d cells ran, want the run to stop after the first", sum.Ran)
	}
}

// TestARealRailsDumpLoads loads a real Rails application's mariadb-dump
// (Debian's Redmine after its own migrations and some data:
// scripts/redmine-dump-fixture.sh) into MyRocks, Aria and InnoDB. Its
// utf8mb4 VARCHAR(255) primary keys (schema_migrations,
// ar_internal_metadata) are 1020 bytes: MyRocks holds them with the large
// prefix its users turn on, and the cell records it; MyISAM's own
// 1000-byte limit refuses the dump in one line naming the table.
func TestARealRailsDumpLoads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	dump, _ := filepath.Abs("../workload/dump/testdata/redmine.sql.gz")
	pages, _ := filepath.Abs("../workload/dump/testdata/redmine-pages.yaml")
	// side by side, each server on every core, as in
	// TestARealDumpOnEveryEngine: no figure is asserted
	for _, name := range []string{"mariadb-rocksdb", "mariadb-aria", "mariadb-innodb", "mariadb-myisam"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			requireTargets(t, name)
			p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: []string{"dump"}, Datasets: []string{"redmine.sql.gz"},
				Params: map[string]string{"file": dump, "queries": pages}, Clients: []int{2}, Reps: 10, Interval: "0s", Trim: new(float64), CPUs: "all"}
			f := runPlan(t, p, &Runner{}, 1)[0]
			if name == "mariadb-myisam" {
				if f.OK() || strings.Contains(f.Status, "\n") || !strings.Contains(f.Status, "`ar_internal_metadata`") ||
					!strings.Contains(f.Status, "max key length is 1000 bytes") {
					t.Fatalf("MyISAM: %q, want one line naming the table and the engine's limit", f.Status)
				}
				return
			}
			if !f.OK() {
				t.Fatalf("cell: %s; invariants %+v", f.Status, f.Invariants)
			}
			if f.Throughput.Events != 20 {
				t.Errorf("%d pages, want 2 clients x 10", f.Throughput.Events)
			}
			// what Redmine's migrations and its default data wrote
			if f.Load.Tables["schema_migrations"] < 300 || f.Load.Tables["issues"] < 10 || f.Load.Tables["workflows"] < 100 {
				t.Errorf("loaded %v: want Redmine's migrations, workflows and issues", f.Load.Tables)
			}
			if name == "mariadb-rocksdb" && (f.Target.Applied["rocksdb_large_prefix"] != "ON" || !strings.EqualFold(f.Target.Settings["rocksdb_large_prefix"], "ON")) {
				t.Errorf("rocksdb_large_prefix applied %q, server %q: the cell must say the setting it loaded with",
					f.Target.Applied["rocksdb_large_prefix"], f.Target.Settings["rocksdb_large_prefix"])
			}
		})
	}
}

package run

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/report"
	"shootout/internal/result"
)

// TestShopOnEveryEngine runs the shop's 50 pages as siege walks them (4
// clients x 50 pages, so every client renders every page once, the
// checkout included) on each engine of seed 001 and the extra rows: every
// page served, the counts the pages read equal to what the generated data
// holds, the orders written, the tables in the engine asked for, and the
// seed's table printed.
func TestShopOnEveryEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	engines := map[string]string{"mariadb-myisam": "MyISAM", "mariadb-aria": "Aria", "mariadb-aria-nontx": "Aria",
		"mariadb-innodb": "InnoDB", "mariadb-rocksdb": "ROCKSDB", "postgres": "", "sqlite": ""}
	names := []string{"mariadb-myisam", "mariadb-aria", "mariadb-aria-nontx", "mariadb-innodb", "mariadb-rocksdb", "postgres", "sqlite"}
	got := make([]*result.File, len(names))
	// the engines side by side (the group ends when they all have); the
	// server and shootout share the cores (--cpus all), since a cell placed
	// on its own CPUs moves the whole test process (limits.PinSelf), which
	// two cells of one process cannot share; what is asserted is each
	// cell's pages, counts and tables, no CPU or disk figure
	t.Run("engines", func(t *testing.T) {
		for i, name := range names {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				got[i] = shopOn(t, name, engines[name])
			})
		}
	})
	var files []*result.File
	for _, f := range got {
		if f != nil {
			files = append(files, f)
		}
	}
	if len(files) < 2 {
		return
	}
	var out bytes.Buffer
	// wide enough that no header or title wraps: the test reads the
	// table's words, the width rule has its own tests in report
	t.Setenv("COLUMNS", "1000")
	report.Terminal(&out, files, files[0].Cell.Target)
	table := out.String()
	if !strings.Contains(table, "the seed's table (siege)") || !strings.Contains(table, "ETime s") || !strings.Contains(table, "200 of 200") {
		t.Fatalf("no seed's table in:\n%s", table)
	}
	for _, f := range files {
		if !strings.Contains(table, fmt.Sprintf("%s ", f.Cell.Target)) {
			t.Errorf("%s has no row:\n%s", f.Cell.Target, table)
		}
	}
}

// shopOn runs the shop's pages on one target and asserts each page was
// served and counted and products is in the engine asked for (want; ""
// where the server has but one).
func shopOn(t *testing.T, name, want string) *result.File {
	requireTargets(t, name)
	p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: []string{"shop"}, Datasets: []string{"1000"},
		Clients: []int{4}, Reps: 50, Interval: "0s", Trim: new(float64), CPUs: "all"}
	var engine, options string
	r := &Runner{beforeCheck: func(ctx context.Context, db *sql.DB) error {
		if want == "" {
			return nil
		}
		return db.QueryRowContext(ctx, "SELECT ENGINE, CREATE_OPTIONS FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'products'").Scan(&engine, &options)
	}}
	f := runPlan(t, p, r, 1)[0]
	if !f.OK() {
		t.Fatalf("cell: %s; invariants %+v", f.Status, f.Invariants)
	}
	c := f.Counters
	if f.Throughput.Events != 200 || c["pages"] != 200 {
		t.Errorf("%d pages served (counter %d), want 4 clients x 50", f.Throughput.Events, c["pages"])
	}
	if c["orders"]+c["out_of_stock"] != 4 || c["checked_counts"] < 4*30 {
		t.Errorf("counters %v: want 4 checkouts and the pages' counts checked", c)
	}
	if f.Throughput.Writes == 0 || float64(f.Throughput.Writes) > 0.05*float64(f.Throughput.Reads) {
		t.Errorf("reads %d, writes %d: want a few percent of writes", f.Throughput.Reads, f.Throughput.Writes)
	}
	if want != "" && !strings.EqualFold(engine, want) {
		t.Errorf("products is %s, want %s", engine, want)
	}
	if nontx := strings.Contains(strings.ToLower(options), "transactional=0"); nontx != (name == "mariadb-aria-nontx") {
		t.Errorf("%s: products' options %q", name, options)
	}
	return f
}

package run

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/plan"
)

// TestInnoDBIndexBuildFitsTheSizedCap: InnoDB builds every secondary
// index an ALTER TABLE adds in sort buffers of its own, about 7 times
// innodb_sort_buffer_size each; at MariaDB's default of 1M, the 11
// indexes of Redmine's giant issues took 79 MB beyond the buffer pool and
// the 256M cap's OOM killer killed one load in eight (issue 35). The
// same build in small: a dump of one table, 120,000 rows (enough to fill
// a 1M sort buffer per index) and 16 integer keys (what the sizing counts
// at once), loaded on InnoDB at the least budget the sizing takes for it.
// Without innodb_sort_buffer_size from the budget the server is killed in
// the index build; with it the cell succeeds. About 30 s.
func TestInnoDBIndexBuildFitsTheSizedCap(t *testing.T) {
	requireLimits(t)
	dir := t.TempDir()
	dump, pages := filepath.Join(dir, "wide.sql"), filepath.Join(dir, "pages.yaml")
	writeWideDump(t, dump, 120000, 16)
	if err := os.WriteFile(pages, []byte("pages:\n  - name: by key\n    statements:\n      - SELECT id FROM wide WHERE c1 = {random wide.c1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"dump"}, Datasets: []string{"wide.sql"},
		Params: map[string]string{"file": dump, "queries": pages}, Clients: []int{1}, Reps: 5, Interval: "0s", Memory: "192M"}
	f := cellOf(t, p)
	if !f.OK() {
		t.Fatalf("the index build must fit the cap the sizing shared out: %s (evidence %v)", f.Status, f.Limits.Evidence)
	}
	if f.Load.Tables["wide"] != 120000 {
		t.Fatalf("loaded %v, want the dump's 120000 rows", f.Load.Tables)
	}
}

// writeWideDump writes a mariadb-dump-like file: one InnoDB table of rows
// rows with keys integer columns, each with a key of its own.
func writeWideDump(t *testing.T, path string, rows, keys int) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	cols, idx := []string{"`id` int(11) NOT NULL"}, []string{"PRIMARY KEY (`id`)"}
	for k := 1; k <= keys; k++ {
		cols = append(cols, fmt.Sprintf("`c%d` int(11) NOT NULL", k))
		idx = append(idx, fmt.Sprintf("KEY `k%d` (`c%d`)", k, k))
	}
	fmt.Fprintf(w, "CREATE TABLE `wide` (\n  %s\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n", strings.Join(append(cols, idx...), ",\n  "))
	for first := 1; first <= rows; first += 1000 {
		w.WriteString("INSERT INTO `wide` VALUES ")
		for id := first; id < first+1000 && id <= rows; id++ {
			if id > first {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "(%d", id)
			for k := 1; k <= keys; k++ {
				// each key in another order, so every index sorts
				fmt.Fprintf(w, ",%d", id*(2*k+1)%100003)
			}
			w.WriteByte(')')
		}
		w.WriteString(";\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

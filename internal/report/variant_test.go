package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"shootout/internal/result"
)

// A target's variants (a setting the plan gave a list, --link) are rows
// of their own, named by their values, in one table with the baseline,
// which has no link: each is compared with it as another target is.
func TestTargetVariantsAreRowsAgainstTheBaseline(t *testing.T) {
	var in []*result.File
	for _, v := range []struct {
		target, variant, writers, link string
		mean                           float64
	}{
		{"mariadb-innodb", "", "", "", 2},
		{"mariadb-galera", "writers=one link=none", "one", "", 4},
		{"mariadb-galera", "writers=all link=1ms", "all", "1ms", 8},
	} {
		f := cell(v.target, 8, "0", v.mean, "ok")
		f.Cell.Variant, f.Cell.Conditions.Link = v.variant, v.link
		if v.writers != "" {
			f.Cell.Conditions.Settings = map[string]string{"nodes": "3", "writers": v.writers}
		}
		in = append(in, f)
	}
	var b bytes.Buffer
	if err := CSV(&b, in, "mariadb-innodb"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int {
		for i, h := range CSVHeader {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	want := map[string]string{"mariadb-innodb": "1.0000", "mariadb-galera writers=one link=none": "2.0000", "mariadb-galera writers=all link=1ms": "4.0000"}
	tables := map[string]bool{}
	for _, r := range rows[1:] {
		tables[r[col("table")]] = true
		if want[r[col("target")]] != r[col("times_baseline")] {
			t.Errorf("row %s: times the baseline %q, want %q", r[col("target")], r[col("times_baseline")], want[r[col("target")]])
		}
		delete(want, r[col("target")])
	}
	if len(want) > 0 || len(tables) != 1 {
		t.Errorf("rows missing %v; tables %v, want one", want, tables)
	}
	if in[1].Cell.Target != "mariadb-galera" {
		t.Errorf("the files given were changed: %q", in[1].Cell.Target)
	}
	b.Reset()
	Terminal(&b, in, "mariadb-innodb")
	if out := b.String(); !strings.Contains(out, "mariadb-galera writers=all link=1ms") || strings.Contains(out, "link 1ms") {
		t.Errorf("the terminal table does not name the variants in one table:\n%s", out)
	}
}

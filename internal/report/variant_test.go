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

// A baseline named by its plain target (report --baseline mariadb-galera,
// a directory without a manifest) is its first variant, as the run takes
// it: the CSV's ratios are against it, not left empty.
func TestAPlainBaselineIsItsFirstVariant(t *testing.T) {
	var in []*result.File
	for _, v := range []struct {
		variant string
		mean    float64
	}{{"writers=one", 4}, {"writers=all", 8}} {
		f := cell("mariadb-galera", 8, "0", v.mean, "ok")
		f.Cell.Variant = v.variant
		in = append(in, f)
	}
	var b bytes.Buffer
	if err := CSV(&b, in, "mariadb-galera"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ratio, target := -1, -1
	for i, h := range rows[0] {
		switch h {
		case "times_baseline":
			ratio = i
		case "target":
			target = i
		}
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		if r[ratio] != "" {
			got[r[target]] = r[ratio]
		}
	}
	if got["mariadb-galera writers=all"] != "2.0000" || got["mariadb-galera writers=one"] != "1.0000" {
		t.Errorf("ratios against the plain target's first variant: %v", got)
	}
}

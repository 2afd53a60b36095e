package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"shootout/internal/result"
)

// rerunWithDuration is the fixture's cells written again into the same
// directory by a run with another --duration, three times slower.
func rerunWithDuration(files []*result.File, duration string) []*result.File {
	out := append([]*result.File(nil), files...)
	for _, f := range files {
		g := *f
		g.Cell.ID += "__h0000beef"
		g.Cell.Duration = duration
		g.Space.TableBytes = f.Space.SettledBytes * 2
		g.Ops = map[string]result.Op{}
		for op, o := range f.Ops {
			o.MeanMs *= 3
			g.Ops[op] = o
		}
		out = append(out, &g)
	}
	return out
}

// The same plan run twice into one --out with another --duration: every
// table shows each duration apart, titled by it, and no row pools the two
// (n=2, or a median between them).
func TestRepeatsOfOtherConditionsAreNeverPooled(t *testing.T) {
	p := fixturePage()
	for _, f := range p.Files {
		f.Space.TableBytes = f.Space.SettledBytes
	}
	p.Files = rerunWithDuration(p.Files, "60s")

	var term bytes.Buffer
	Terminal(&term, p.Files, fxRocks)
	out := term.String()
	for _, want := range []string{
		"\noltp_read_write, dataset 100000, duration 15s, operation \"event\"",
		"\noltp_read_write, dataset 100000, duration 60s, operation \"event\"",
		"\noltp_point_select, dataset 100000, duration 60s: throughput",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal: no table %q", want)
		}
	}
	if !strings.Contains(out, "oltp_read_write  100000 (duration 15s)") || !strings.Contains(out, "oltp_read_write  100000 (duration 60s)") {
		t.Errorf("terminal: the space table pools the two durations")
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 3 && (f[0] == fxRocks || f[0] == fxInno) && f[1] == "1/0" && f[2] != "1" {
			t.Errorf("terminal: a row pools repeats of two durations: %q", l)
		}
	}
	if t.Failed() {
		t.Log(out)
	}

	page := string(render(t, p))
	for _, want := range []string{"oltp_read_write, dataset 100000, duration 15s</h2>", "oltp_read_write, dataset 100000, duration 60s</h2>"} {
		if strings.Count(page, want) != 1 {
			t.Errorf("HTML: want one group %q", want)
		}
	}

	var b bytes.Buffer
	if err := CSV(&b, p.Files, fxRocks); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	tables := map[string]int{}
	for _, r := range rows[1:] {
		if r[col["target"]] == fxInno && r[col["label"]] == "1/0" && r[col["workload"]] == "oltp_read_write" {
			tables[r[col["table"]]]++
			if r[col["times_baseline"]] != "0.8000" {
				t.Errorf("CSV: ratio %s against the baseline of another duration", r[col["times_baseline"]])
			}
		}
	}
	if len(tables) != 2 {
		t.Errorf("CSV: the rows of two durations are not told apart by their table: %v", tables)
	}
}

// A target whose own settings changed between the two runs gets a table
// of its own per settings; the others stay in one table.
func TestATargetsChangedSettingsSplitItsTable(t *testing.T) {
	var files []*result.File
	for i, pool := range []string{"1G", "1G", "2G"} {
		f := cell(fxInno, 1, "0", float64(3+i), "ok")
		f.Cell.Conditions.Settings = map[string]string{"innodb_buffer_pool_size": pool}
		files = append(files, f)
	}
	files = append(files, cell(fxRocks, 1, "0", 1, "ok"))
	gs := groups(files)
	var titles []string
	for _, g := range gs {
		titles = append(titles, g.title)
		if g.targets[0] == fxInno && len(g.files) == 3 {
			t.Fatalf("repeats of two buffer pools pooled")
		}
	}
	want := []string{
		"oltp_read_write, dataset 1000, only mariadb-innodb, settings.innodb_buffer_pool_size 1G",
		"oltp_read_write, dataset 1000, only mariadb-innodb, settings.innodb_buffer_pool_size 2G",
		"oltp_read_write, dataset 1000",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Fatalf("titles\n%s\nwant\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
}

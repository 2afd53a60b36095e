package report

import (
	"bytes"
	"strings"
	"testing"

	"shootout/internal/hist"
	"shootout/internal/result"
	"shootout/internal/sections"

	// the workloads whose sections the report's tests draw register them
	// as the command's build does
	_ "shootout/internal/workload/kv"
	_ "shootout/internal/workload/shop"
)

// A workload's own table comes from the section it registered, not from
// its name: a workload the report has never heard of gets the rows-read
// table with its row parameter, and the siege table, by registering them.
func TestSectionsComeFromTheRegistry(t *testing.T) {
	sections.Register("registry-rows", sections.Section{Kind: sections.RowsRead, RowParam: "how",
		DefaultRow: func(flavor string) string { return "by-" + flavor }, Title: "T", Legend: "the registered legend"})
	sections.Register("registry-pages", sections.Section{Kind: sections.Pages})
	cell := func(wl, target string) *result.File {
		return &result.File{
			Cell:       result.Cell{Target: target, Workload: wl, Dataset: "1", Clients: 1, Conditions: result.Conditions{Neighbour: "0"}, Repeat: 1},
			Target:     result.Target{Name: target, Flavor: "flv"},
			Status:     "ok",
			Throughput: result.Throughput{Reads: 100, Events: 100, Seconds: 1, TPS: 100},
			Ops:        map[string]result.Op{"read": {Snapshot: hist.Snapshot{Count: 100, MeanMs: 1}, Untrimmed: hist.Snapshot{Count: 100, SumMs: 100}}},
		}
	}
	var b bytes.Buffer
	Terminal(&b, []*result.File{cell("registry-rows", "a"), cell("registry-pages", "a")}, "a")
	out := b.String()
	for _, want := range []string{"registry-rows, dataset 1: the seed's table (rows read per second)", "by-flv", "the registered legend",
		"registry-pages, dataset 1", "the seed's table (siege)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "the seed's table (siege)") != 1 {
		t.Errorf("only the workload that registered pages gets the siege table:\n%s", out)
	}
}

// The registered tables' titles and legends wrap at the width like the
// tables: a shop --quick report at COLUMNS=100 had a 234-column legend.
func TestSectionLegendsFitTheWidth(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	var files []*result.File
	for _, wl := range []string{"kv", "shop"} {
		for _, tg := range []string{"mariadb-innodb", "postgres"} {
			files = append(files, &result.File{
				Cell:       result.Cell{Target: tg, Workload: wl, Dataset: "1000", Clients: 10, Conditions: result.Conditions{Neighbour: "0", MemoryBytes: 4 << 30}, Repeat: 1},
				Target:     result.Target{Name: tg, Flavor: "mariadb"},
				Status:     "ok",
				Throughput: result.Throughput{Reads: 1000, Events: 100, Seconds: 10, TPS: 10},
				Ops:        map[string]result.Op{"read": {Snapshot: hist.Snapshot{Count: 100, MeanMs: 1}, Untrimmed: hist.Snapshot{Count: 100, SumMs: 100}}},
			})
		}
	}
	var b bytes.Buffer
	Terminal(&b, files, "mariadb-innodb")
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("a line of %d columns at COLUMNS=100: %q", n, l)
		}
	}
	words := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"the seed's table (siege)", "the seed's table (rows read per second)", "untrimmed, as siege reports them", "one run has no noise estimate"} {
		if !strings.Contains(words, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

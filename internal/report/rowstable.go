package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"shootout/internal/result"
	"shootout/internal/sections"
	"shootout/internal/stats"
)

// Seed 003 compared servers by rows read per second, one row per server
// (and per engine, access path and allocator tried). rowsTable is that
// table from the cells of one dataset and memory of a workload whose
// registered section is sections.RowsRead, across the values of its row
// parameter and the allocators that the other tables keep apart.

// rowsSet is a rows-read workload's cells of one dataset and memory.
type rowsSet struct {
	title   string
	section sections.Section
	files   []*result.File
}

func rowsSets(files []*result.File) []rowsSet {
	var picked []*result.File
	rowParam := map[string]bool{}
	for _, f := range files {
		if s, ok := sections.Of(f.Cell.Workload); ok && s.Kind == sections.RowsRead {
			picked = append(picked, f)
			rowParam["params."+s.RowParam] = true
		}
	}
	// the row parameter's values and the allocators are rows of the
	// seed's table; every other identity field keeps sets apart, as in
	// the other tables
	rowOrAllocator := func(k string) bool { return rowParam[k] || k == "conditions.allocator" }
	var out []rowsSet
	for _, g := range partition(picked, rowOrAllocator, func(c result.Cell) string {
		title := c.Workload + ", dataset " + c.Dataset
		if m := c.Conditions.MemoryBytes; m > 0 {
			title += fmt.Sprintf(", memory %d MiB", m>>20)
		}
		return title
	}) {
		s, _ := sections.Of(g.files[0].Cell.Workload)
		out = append(out, rowsSet{title: g.title, section: s, files: g.files})
	}
	return out
}

// rowsRow is a target at a value of the row parameter with an allocator,
// at one clients/load label.
type rowsRow struct{ target, param, allocator, label string }

func rowsRowOf(s sections.Section, f *result.File) rowsRow {
	param := f.Cell.Params[s.RowParam]
	if param == "" {
		param = s.DefaultRow(f.Target.Flavor)
	}
	alloc := f.Cell.Conditions.Allocator
	if alloc == "" {
		alloc = f.Target.Applied["malloc_lib"]
	}
	if alloc == "" || alloc == "system" {
		alloc = "glibc"
	}
	return rowsRow{f.Cell.Target, param, alloc, f.Cell.Label()}
}

func rowsPerS(f *result.File) float64 {
	if f.Throughput.Seconds <= 0 {
		return 0
	}
	return float64(f.Throughput.Reads) / f.Throughput.Seconds
}

// rowsTable is the seed's table: rows/s, × slower than the baseline's first
// row at the same label (its own path and allocator), the times of an
// operation (a read, or a batch of reads), CPU per row on each side, and
// whether the window read from memory.
func rowsTable(set rowsSet, baseline string) (head []string, rows [][]tcell) {
	head = []string{"target", set.section.RowParam, "allocator", "clients/load", "n", "rows/s", "× slower", "p50 ms", "p99 ms", "server CPU µs/row", "client CPU µs/row", "in memory", "version"}
	byRow := map[rowsRow][]*result.File{}
	var order []rowsRow
	for _, f := range set.files {
		r := rowsRowOf(set.section, f)
		if _, ok := byRow[r]; !ok {
			order = append(order, r)
		}
		byRow[r] = append(byRow[r], f)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if (a.target == baseline) != (b.target == baseline) {
			return a.target == baseline
		}
		if a.label != b.label {
			return labelLess(a.label, b.label)
		}
		return false
	})
	rates := func(fs []*result.File) []float64 {
		var out []float64
		for _, f := range fs {
			if f.OK() {
				out = append(out, rowsPerS(f))
			}
		}
		return out
	}
	baseRates := map[string][]float64{}
	for _, r := range order {
		if r.target == baseline && baseRates[r.label] == nil {
			baseRates[r.label] = rates(byRow[r])
		}
	}
	for _, r := range order {
		fs := byRow[r]
		var ok []*result.File
		for _, f := range fs {
			if f.OK() {
				ok = append(ok, f)
			}
		}
		lead := []tcell{txt(r.target), txt(r.param), txt(r.allocator), txt(r.label)}
		if len(ok) == 0 {
			rows = append(rows, append(lead, tcell{Text: clip(fs[0].Status, 80), Title: fs[0].Status, Failed: true, Span: len(head) - len(lead)}))
			continue
		}
		fig := func(v func(*result.File) float64) float64 { return median(ok, v) }
		rate := fig(rowsPerS)
		ratio := "-"
		if br := baseRates[r.label]; len(br) > 0 && rate > 0 {
			ratio = fmt.Sprintf("%.2f%s", stats.Median(br)/rate, noiseMark(br, rates(ok)))
		}
		perRow := func(secs func(*result.File) float64) string {
			return fmt.Sprintf("%.1f", fig(func(f *result.File) float64 {
				if f.Throughput.Reads == 0 {
					return 0
				}
				return secs(f) * 1e6 / float64(f.Throughput.Reads)
			}))
		}
		rows = append(rows, append(lead, numCell(fmt.Sprint(len(ok))), numCell(fmt.Sprintf("%.0f", rate)), numCell(ratio),
			numCell(fmt.Sprintf("%.3f", fig(func(f *result.File) float64 { return f.Ops["read"].P50Ms }))),
			numCell(fmt.Sprintf("%.3f", fig(func(f *result.File) float64 { return f.Ops["read"].P99Ms }))),
			numCell(serverPerRow(ok, perRow)),
			numCell(clientPerRow(ok, perRow)),
			txt(inMemoryText(ok)), txt(versionOf(ok))))
	}
	return head, rows
}

// serverPerRow is the server's CPU per row, n/a when a repeat could not
// resolve it (a window shorter than its counter's unit) or did not
// measure it (an external server): a 0 would pass for a figure.
func serverPerRow(fs []*result.File, perRow func(func(*result.File) float64) string) string {
	for _, f := range fs {
		if _, ok := f.Server.CPU(); !ok {
			return notMeasured
		}
	}
	return perRow(func(f *result.File) float64 { cpu, _ := f.Server.CPU(); return cpu })
}

// clientPerRow is the client's CPU per row, n/a for an embedded database:
// its process is the server's, all of it already in the server column
// (results written before run left the client's empty hold it twice).
func clientPerRow(fs []*result.File, perRow func(func(*result.File) float64) string) string {
	if embedded(fs[0]) {
		return notMeasured
	}
	return perRow(func(f *result.File) float64 { return f.Client.CPUSeconds })
}

// inMemoryText is "yes" when every repeat proved it read from memory,
// else what the first that did not read; why is in the note listed under
// the tables, which would make the column too wide.
func inMemoryText(fs []*result.File) string {
	for _, f := range fs {
		im := f.Server.InMemory
		switch {
		case im == nil:
			return "not proven"
		case !im.OK && strings.HasPrefix(im.Note, "not proven"):
			return "not proven"
		case !im.OK && im.ReadBytes <= 1<<20 && im.CgroupReadIOs > 0:
			return fmt.Sprintf("NO: %d read IOs", im.CgroupReadIOs)
		case !im.OK:
			return fmt.Sprintf("NO: %.1f MiB read", float64(im.ReadBytes)/(1<<20))
		}
	}
	return "yes"
}

func writeRowsTables(w io.Writer, files []*result.File, baseline string) {
	for _, set := range rowsSets(files) {
		base := baseline
		if !containsTarget(set.files, base) {
			base = set.files[0].Cell.Target
		}
		fmt.Fprintln(w)
		note(w, Width(), "", fmt.Sprintf("%s: the seed's table (rows read per second); × = times slower than %s", set.title, base))
		head, rows := rowsTable(set, base)
		writeCells(w, head, rows)
		note(w, Width(), "  ", set.section.Legend)
		note(w, Width(), "  ", noiseLegend)
	}
}

func containsTarget(fs []*result.File, t string) bool {
	for _, f := range fs {
		if f.Cell.Target == t {
			return true
		}
	}
	return false
}

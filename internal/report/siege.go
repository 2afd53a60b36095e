package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"shootout/internal/result"
	"shootout/internal/sections"
	"shootout/internal/stats"
)

// The shop study's seed (001) timed its pages with siege and printed
// siege's summary per server: ETime (s for all requests), RTime (mean
// response, s), TRate (requests/s), Conc (sum of response times ÷ ETime),
// OK (successful requests), LA (the highest load average) and MEM (MB in
// use). siegeTable is that table from the cells' own figures, untrimmed as
// siege's are, with "× slower" (ETime over the baseline's).

// siegeStyle says whether a group's cells ran as siege runs: each client a
// fixed number of pages (reps), or a workload whose operations are a
// site's pages (its registered section).
func siegeStyle(g *group) bool {
	for _, f := range g.files {
		if f.Cell.Reps > 0 || sections.Is(f.Cell.Workload, sections.Pages) {
			return true
		}
	}
	return false
}

// siegeFigures are one cell's siege summary.
type siegeFigures struct {
	eTime, rTime, tRate, conc, la, memMiB float64
	ok, asked                             int64
}

func siegeOf(f *result.File) (siegeFigures, bool) {
	if !f.OK() || f.Throughput.Seconds <= 0 {
		return siegeFigures{}, false
	}
	var n int64
	var sumMs float64
	for _, op := range f.Ops {
		n += op.Untrimmed.Count
		sumMs += op.Untrimmed.SumMs
	}
	s := siegeFigures{eTime: f.Throughput.Seconds, tRate: float64(f.Throughput.Events) / f.Throughput.Seconds,
		conc: sumMs / 1000 / f.Throughput.Seconds, ok: f.Throughput.Events, la: f.Server.MaxLoadAvg,
		memMiB: float64(f.Server.PeakRSSBytes) / mib}
	if n > 0 {
		s.rTime = sumMs / 1000 / float64(n)
	}
	if f.Cell.Reps > 0 {
		s.asked = f.Cell.Reps * int64(f.Cell.Clients)
	}
	return s, true
}

// siegeTable is the seed's table for g: a row per target and
// clients/load, the medians over the repeats that succeeded.
func siegeTable(g *group, base string) (head []string, rows [][]tcell) {
	head = []string{"target", "clients/load", "n", "ETime s", "RTime s", "TRate /s", "Conc", "OK", "LA", "MEM MiB", "× " + base, "version"}
	eTimes := func(t, l string) []float64 {
		var out []float64
		for _, f := range pick(g.files, t, l) {
			if s, ok := siegeOf(f); ok {
				out = append(out, s.eTime)
			}
		}
		return out
	}
	for _, t := range ordered(g, base) {
		for _, l := range g.labels {
			fs := pick(g.files, t, l)
			if len(fs) == 0 {
				continue
			}
			var ok []*result.File
			for _, f := range fs {
				if _, good := siegeOf(f); good {
					ok = append(ok, f)
				}
			}
			if len(ok) == 0 {
				rows = append(rows, []tcell{txt(t), txt(l), {Text: clip(fs[0].Status, 80), Title: fs[0].Status, Failed: true, Span: len(head) - 2}})
				continue
			}
			fig := func(v func(siegeFigures) float64) float64 {
				return median(ok, func(f *result.File) float64 { s, _ := siegeOf(f); return v(s) })
			}
			e := fig(func(s siegeFigures) float64 { return s.eTime })
			okText := fmt.Sprintf("%.0f", fig(func(s siegeFigures) float64 { return float64(s.ok) }))
			if s, _ := siegeOf(ok[0]); s.asked > 0 {
				okText += fmt.Sprintf(" of %d", s.asked)
			}
			ratio := "-"
			if bt := eTimes(base, l); len(bt) > 0 && t != base {
				if bm := stats.Median(bt); bm > 0 {
					ratio = fmt.Sprintf("%.2f%s", e/bm, noiseMark(bt, eTimes(t, l)))
				}
			}
			rows = append(rows, []tcell{txt(t), txt(l), numCell(fmt.Sprint(len(ok))),
				numCell(fmt.Sprintf("%.2f", e)),
				numCell(fmt.Sprintf("%.3f", fig(func(s siegeFigures) float64 { return s.rTime }))),
				numCell(fmt.Sprintf("%.2f", fig(func(s siegeFigures) float64 { return s.tRate }))),
				numCell(fmt.Sprintf("%.2f", fig(func(s siegeFigures) float64 { return s.conc }))),
				numCell(okText),
				numCell(fmt.Sprintf("%.2f", fig(func(s siegeFigures) float64 { return s.la }))),
				numCell(fmt.Sprintf("%.0f", fig(func(s siegeFigures) float64 { return s.memMiB }))),
				numCell(ratio), txt(versionOf(ok))})
		}
	}
	return head, rows
}

const siegeLegend = "ETime = seconds for all pages, RTime = mean page time (s), TRate = pages/s, Conc = sum of page times ÷ ETime, " +
	"OK = pages served, LA = highest 1-minute load average, MEM = the server's peak RSS (MiB); untrimmed, as siege reports them"

func writeSiegeTable(w io.Writer, g *group, base string) {
	fmt.Fprintln(w)
	note(w, Width(), "", fmt.Sprintf("%s: the seed's table (siege); × = ETime over %s's", g.title, base))
	head, rows := siegeTable(g, base)
	writeCells(w, head, rows)
	note(w, Width(), "  ", siegeLegend)
	note(w, Width(), "  ", noiseLegend)
}

// writeCells writes a table of cells for the terminal, right-aligned, a
// cell that spans columns followed by empty ones.
func writeCells(w io.Writer, head []string, rows [][]tcell) {
	var text [][]string
	for _, r := range rows {
		var cells []string
		for _, c := range r {
			text := c.Text
			if c.Failed && c.Span > 1 {
				// the reason is listed in full under the tables (the
				// failed cells); here it would widen its first column
				text = "failed"
			}
			cells = append(cells, text)
			for k := 1; k < c.Span; k++ {
				cells = append(cells, "")
			}
		}
		text = append(text, cells)
	}
	fitTable(w, Width(), tabwriter.AlignRight, head, text, namingColumns(text), 1)
}

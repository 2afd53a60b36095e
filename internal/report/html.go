package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"shootout/internal/result"
)

// Page is what an HTML report is made of: a results directory's cells,
// its manifest and disk calibration when it has them.
type Page struct {
	Dir         string
	Files       []*result.File
	Manifest    *result.Manifest // nil when the directory has no run.json
	Calibration *Calibration     // nil when calibrate saved none there
	Baseline    string
	Generated   time.Time
}

// Calibration is the part of calibration.json (`shootout calibrate --out`)
// that the header shows.
type Calibration struct {
	Device  string             `json:"device"`
	IOPS    map[string]float64 `json:"iops"`
	CapIOPS int                `json:"cap_iops"`
}

// LoadPage reads a results directory. The baseline is the one given, else
// the run's, else the first cell's target.
func LoadPage(dir, baseline string) (*Page, error) {
	files, err := result.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &Page{Dir: dir, Files: files, Baseline: baseline, Generated: time.Now()}
	if m, err := result.ReadManifest(dir); err == nil {
		p.Manifest = m
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "calibration.json")); err == nil {
		var c Calibration
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s/calibration.json: %w", dir, err)
		}
		p.Calibration = &c
	}
	if p.Baseline == "" && p.Manifest != nil {
		p.Baseline = p.Manifest.Baseline
	}
	if p.Baseline == "" && len(files) > 0 {
		p.Baseline = files[0].Cell.Target
	}
	return p, nil
}

// WriteHTMLFile writes the report to path atomically, so a browser or a
// crash never sees half a page.
func WriteHTMLFile(path string, p *Page) error {
	var buf bytes.Buffer
	if err := HTML(&buf, p); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".report-*.html")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

//go:embed html.tmpl
var htmlTemplate string

// pageTemplate's functions do the little arithmetic of placing a label
// beside the point that the layout computed.
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"px":           func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) },
	"add":          func(a, b float64) float64 { return a + b },
	"mid":          func(a, b float64) float64 { return (a + b) / 2 },
	"half":         func(v float64) float64 { return v / 2 },
	"quarter":      func(v float64) float64 { return v / 4 },
	"threequarter": func(v float64) float64 { return v * 3 / 4 },
}).Parse(htmlTemplate))

// HTML writes one self-contained page: inline CSS and SVG, no script and
// nothing fetched, so it reads the same offline, in a mail or on paper.
// Every text that comes from a user or a server passes through
// html/template's escaping.
func HTML(w io.Writer, p *Page) error {
	return pageTemplate.Execute(w, buildPage(p))
}

// view is the page as the template sees it.
type view struct {
	Title      string
	Dir        string
	Generated  string
	What       []kv
	Machine    []kv
	Limits     []kv
	Verdict    []string
	Groups     []viewGroup
	Space      []figure
	Statements []figure
	Settings   []figure
	Failed     *table
}

type kv struct{ Key, Value string }

type viewGroup struct {
	ID, Title, Summary string
	Sections           []section
}

type section struct {
	Title, Note string
	Small       bool // small multiples: several charts side by side
	Figures     []figure
}

type figure struct {
	Heading, Caption string
	Charts           []*svgChart
	Table            *table
}

type table struct {
	Groups []tgroup // an optional header row above Head
	Head   []string
	Rows   [][]tcell
}

type tgroup struct {
	Text string
	Span int
}

type tcell struct {
	Text, Title string
	Num, Failed bool
	Span        int
}

func txt(s string) tcell     { return tcell{Text: s} }
func numCell(s string) tcell { return tcell{Text: s, Num: true} }
func failCell(why string) tcell {
	return tcell{Text: clip(why, 80), Title: why, Failed: true}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func buildPage(p *Page) view {
	q := *p
	q.Files = named(p.Files)
	q.Baseline = variantBaseline(q.Files, p.Baseline)
	p = &q
	v := view{Dir: p.Dir, Generated: p.Generated.UTC().Format("2006-01-02 15:04 UTC")}
	v.Title = "shootout results"
	if p.Manifest != nil && p.Manifest.Name != "" {
		v.Title = "shootout: " + p.Manifest.Name
	}
	colors := targetColors(p)
	gs := groups(p.Files)
	v.What, v.Machine, v.Limits = header(p)
	v.Verdict = verdict(gs, p.Baseline, p.Files)
	for si, set := range rowsSets(p.Files) {
		base := p.Baseline
		if !containsTarget(set.files, base) {
			base = set.files[0].Cell.Target
		}
		head, rows := rowsTable(set, base)
		v.Groups = append(v.Groups, viewGroup{ID: fmt.Sprintf("%s%d", set.files[0].Cell.Workload, si+1), Title: set.title + ": the seed's table",
			Sections: []section{{Title: set.section.Title, Note: set.section.Legend + "; × = times slower than " + base + ".",
				Figures: []figure{{Table: &table{Head: head, Rows: rows}}}}}})
	}
	for gi, g := range gs {
		v.Groups = append(v.Groups, groupView(fmt.Sprintf("g%d", gi+1), g, baseOf(g, p.Baseline), colors))
	}
	v.Space = spaceFigures(gs, p.Baseline, colors)
	v.Statements = statementFigures(p.Files)
	v.Settings = settingsFigures(p.Files)
	var failedRows [][]tcell
	for _, f := range p.Files {
		if !f.OK() {
			failedRows = append(failedRows, []tcell{txt(f.Cell.ID), {Text: f.Status, Failed: true}})
		}
	}
	if len(failedRows) > 0 {
		v.Failed = &table{Head: []string{"cell", "status"}, Rows: failedRows}
	}
	return v
}

// targetColors gives every target one colour for the whole page, in the
// run's target order.
func targetColors(p *Page) map[string]string {
	var order []string
	if p.Manifest != nil {
		order = append(order, p.Manifest.Targets...)
	}
	for _, f := range p.Files {
		if !contains(order, f.Cell.Target) {
			order = append(order, f.Cell.Target)
		}
	}
	m := map[string]string{}
	for i, t := range order {
		m[t] = palette[i%len(palette)]
	}
	return m
}

func baseOf(g *group, baseline string) string {
	if contains(g.targets, baseline) {
		return baseline
	}
	return g.targets[0]
}

// ordered puts the baseline first, as the terminal table does.
func ordered(g *group, base string) []string {
	return append([]string{base}, without(g.targets, base)...)
}

// cellFor is the representative cell of a target at a label: the median
// successful repeat by tps, as the terminal table takes it, or a failed one
// (for its reason) when no repeat succeeded; nil when none ran there.
func cellFor(files []*result.File, target, label string) *result.File {
	var ok []*result.File
	var bad *result.File
	for _, f := range pick(files, target, label) {
		if f.OK() {
			ok = append(ok, f)
		} else {
			bad = f
		}
	}
	if len(ok) > 0 {
		return ok[len(ok)/2]
	}
	return bad
}

// figureOf is the median over the successful repeats that measured the
// figure, or why there is none: a repeat without it (a server whose CPU
// was not read) is left out, never drawn as 0.
func figureOf(files []*result.File, target, label string, v func(*result.File) (float64, bool)) value {
	fs := pick(files, target, label)
	if x, _, ok := repeatFigureOf(fs, v); ok {
		return value{V: x, State: measured}
	}
	if f := cellFor(files, target, label); f != nil && !f.OK() {
		return value{State: failed, Why: f.Status}
	}
	return value{}
}

func groupView(id string, g *group, base string, colors map[string]string) viewGroup {
	targets := ordered(g, base)
	nok := 0
	for _, f := range g.files {
		if f.OK() {
			nok++
		}
	}
	vg := viewGroup{ID: id, Title: g.title,
		Summary: fmt.Sprintf("%d cells (%d failed); baseline %s; rows are clients/neighbour load as in the seeds' tables", len(g.files), len(g.files)-nok, base)}
	ops := opsOf(g.files)
	if len(ops) == 0 {
		// every cell failed before an operation was timed: the seed's
		// chart still shows each one, as failed
		ops = []string{"(none completed)"}
	}

	tput := throughputSection(id, g, targets, colors)
	cost := costSection(id, g, targets, colors)
	if statementGroup(g) {
		// a chart per statement would be dozens: one table has them all
		vg.Sections = []section{opSection(g, base)}
		if ts := typeSection(g, base); ts != nil {
			vg.Sections = append(vg.Sections, *ts)
		}
		vg.Sections = append(vg.Sections, tput, cost)
	} else {
		vg.Sections = []section{meanSection(id, g, base, targets, ops, colors), percentileSection(id, g, targets, ops, colors), tput, cost}
	}
	if nodes := nodesSection(id, g, targets); nodes != nil {
		vg.Sections = append(vg.Sections, *nodes)
	}
	if siegeStyle(g) {
		head, rows := siegeTable(g, targets[0])
		vg.Sections = append([]section{{Title: "The seed's table (siege)", Note: siegeLegend + "; × = ETime over " + targets[0] + "'s.",
			Figures: []figure{{Table: &table{Head: head, Rows: rows}}}}}, vg.Sections...)
	}
	return vg
}

// meanSection is the seeds' chart: mean time per target, × slower than
// the baseline, one figure per operation.
func meanSection(id string, g *group, base string, targets, ops []string, colors map[string]string) section {
	mean := section{Title: "Mean operation time"}
	for oi, op := range ops {
		var ss []series
		for _, t := range targets {
			s := series{Name: t, Color: colors[t]}
			for _, l := range g.labels {
				m, ok, why := meanMs(g.files, t, l, op)
				switch {
				case ok:
					s.Values = append(s.Values, value{V: m, State: measured})
				case why != "-":
					s.Values = append(s.Values, value{State: failed, Why: why})
				default:
					s.Values = append(s.Values, value{})
				}
			}
			ss = append(ss, s)
		}
		c := barChart(fmt.Sprintf("%s-mean-%d", id, oi+1), g.labels, ss, "ms", "%.3f", true)
		mean.Figures = append(mean.Figures, figure{
			Heading: fmt.Sprintf("Operation %s: trimmed mean time per clients/neighbour", op),
			Caption: fmt.Sprintf("Bars: mean time in ms (left axis; median over repeats). Dashed lines: how many times slower than %s each other target was (right axis; the grey line is 1×, equal). Hatched columns are failed cells; hover for the reason. In the table, %s", base, noiseLegend),
			Charts:  []*svgChart{c}, Table: meanTable(g, op, targets, ss)})
	}
	return mean
}

// percentileSection is each operation's p50, p95, p99 and maximum per
// target and row.
func percentileSection(id string, g *group, targets, ops []string, colors map[string]string) section {
	pct := section{Title: "Latency percentiles"}
	for oi, op := range ops {
		vals := make([][]percentiles, len(targets))
		var cols []string
		t := &table{Groups: []tgroup{{"", 1}}, Head: []string{"clients/load"}}
		for _, tg := range targets {
			t.Groups = append(t.Groups, tgroup{tg + ", ms", 4})
			t.Head = append(t.Head, "p50", "p95", "p99", "max")
		}
		rows := make([][]tcell, len(g.labels))
		for li, l := range g.labels {
			rows[li] = []tcell{txt(l)}
		}
		for ti, tg := range targets {
			cols = append(cols, colors[tg])
			for li, l := range g.labels {
				f := cellFor(g.files, tg, l)
				var p percentiles
				switch {
				case f == nil:
				case !f.OK():
					p = percentiles{State: failed, Why: f.Status}
				default:
					if o, ok := f.Ops[op]; ok && o.Count > 0 {
						p = percentiles{P50: o.P50Ms, P95: o.P95Ms, P99: o.P99Ms, Max: o.MaxMs, State: measured}
					}
				}
				switch p.State {
				case measured:
					rows[li] = append(rows[li], numCell(ms(p.P50)), numCell(ms(p.P95)), numCell(ms(p.P99)), numCell(ms(p.Max)))
				case failed:
					rows[li] = append(rows[li], tcell{Text: clip(p.Why, 40), Title: p.Why, Failed: true, Span: 4})
				default:
					rows[li] = append(rows[li], tcell{Text: "-", Num: true, Span: 4})
				}
				vals[ti] = append(vals[ti], p)
			}
		}
		t.Rows = rows
		c := percentileChart(fmt.Sprintf("%s-pct-%d", id, oi+1), g.labels, targets, cols, vals)
		pct.Figures = append(pct.Figures, figure{
			Heading: fmt.Sprintf("Operation %s: latency percentiles", op),
			Caption: "Box: p50 to p95; whisker: to p99; dot: the maximum (log scale, trimmed operations, the median repeat).",
			Charts:  []*svgChart{c}, Table: t})
	}
	return pct
}

// throughputSection is each row's transactions per second over time, a
// line per target and repeat.
func throughputSection(id string, g *group, targets []string, colors map[string]string) section {
	tput := section{Title: "Throughput over time", Small: true,
		Note: "Transactions per second in each interval (--interval) of each cell, one line per target and repeat."}
	sampled := false
	for li, l := range g.labels {
		var lines []timeLine
		for _, tg := range targets {
			for _, f := range pick(g.files, tg, l) {
				var pts []timePoint
				for _, iv := range f.Intervals {
					pts = append(pts, timePoint{T: iv.AtS, V: iv.TPS})
				}
				if len(pts) > 0 {
					lines = append(lines, timeLine{Name: tg, Color: colors[tg], Points: pts})
					sampled = true
				}
			}
		}
		var cols []string
		for _, tg := range targets {
			cols = append(cols, colors[tg])
		}
		title := "clients/load " + l
		var failedHere []string
		for _, tg := range targets {
			if f := cellFor(g.files, tg, l); f != nil && !f.OK() {
				failedHere = append(failedHere, tg+" "+f.Status)
			}
		}
		caption := ""
		if len(failedHere) > 0 {
			caption = "Failed here: " + strings.Join(failedHere, "; ")
		}
		tput.Figures = append(tput.Figures, figure{Heading: title, Caption: caption,
			Charts: []*svgChart{lineChart(fmt.Sprintf("%s-tps-%d", id, li+1), "Transactions per second over time at "+l, lines, targets, cols, "tps")}})
	}
	if !sampled {
		tput.Figures = nil
		tput.Note = "No interval samples in these cells (run with --interval, e.g. 1s, to get them)."
	}
	return tput
}

// costSection is the cost per transaction: server CPU, bytes written,
// write amplification where known, and the table of every figure.
func costSection(id string, g *group, targets []string, colors map[string]string) section {
	cost := section{Title: "Cost per transaction"}
	costOf := func(name, unit, format string, get func(*result.File) (float64, bool)) *svgChart {
		var ss []series
		for _, t := range targets {
			s := series{Name: t, Color: colors[t]}
			for _, l := range g.labels {
				s.Values = append(s.Values, figureOf(g.files, t, l, get))
			}
			ss = append(ss, s)
		}
		return barChart(fmt.Sprintf("%s-%s", id, name), g.labels, ss, unit, format, false)
	}
	measuredServer := func(f *result.File) bool { return f.Server.Measured }
	cpu := costOf("cpu", "server CPU ms/tx", "%.3f", func(f *result.File) (float64, bool) {
		cpu, known := f.Server.CPUPerOp()
		return cpu * 1000, known
	})
	wr := costOf("written", "disk KiB written/tx", "%.2f", func(f *result.File) (float64, bool) {
		return f.Server.WriteBytesPerOp / 1024, measuredServer(f)
	})
	cost.Figures = append(cost.Figures, figure{Heading: "Server CPU per transaction",
		Caption: "CPU seconds of the server's processes during the run ÷ transactions (ms)." + embeddedCaption(g.files),
		Charts:  []*svgChart{cpu}})
	cost.Figures = append(cost.Figures, figure{Heading: "Bytes written by the server per transaction",
		Caption: "Bytes the disk holding the data directory was sent during the run (page cache synced at both ends, a neighbour's IO taken out) ÷ transactions (KiB, 1024 bytes). In the table, log and data KiB/tx split it by the server's own counters: redo/WAL against data pages, flushes and compactions.",
		Charts:  []*svgChart{wr}})
	hasWA := false
	for _, f := range g.files {
		if f.Server.WriteAmplification != nil {
			hasWA = true
		}
	}
	if hasWA {
		wa := costOf("wa", "write amplification", "%.1f", func(f *result.File) (float64, bool) {
			if f.Server.WriteAmplification == nil {
				return 0, false
			}
			return *f.Server.WriteAmplification, true
		})
		cost.Figures = append(cost.Figures, figure{Heading: "Write amplification",
			Caption: "Bytes the server wrote ÷ bytes of row data the committed operations changed (the workload's logical_bytes; see docs/results.md).",
			Charts:  []*svgChart{wa}})
	}
	costFig := figure{Heading: "Throughput and cost, per cell", Table: costTable(g, targets)}
	var caption []string
	if paused := pausedCells(g.files); len(paused) > 0 {
		caption = append(caption, "Paused: "+strings.Join(paused, "; ")+".")
	}
	if busy := busyHostCells(g.files); len(busy) > 0 {
		caption = append(caption, "Host busy: "+strings.Join(busy, "; ")+".")
	}
	if sat := saturatedClientCells(g.files); len(sat) > 0 {
		caption = append(caption, "Client saturated: "+strings.Join(sat, "; ")+".")
	}
	if wb := unfinishedWriteBacks(g.files); len(wb) > 0 {
		caption = append(caption, unfinishedMark+" Write-back unfinished: "+strings.Join(wb, "; ")+".")
	}
	costFig.Caption = strings.Join(caption, " ")
	cost.Figures = append(cost.Figures, costFig)
	return cost
}

// meanTable is the seed's table under its chart: the bars' values and the
// ratios of the lines.
func meanTable(g *group, op string, targets []string, ss []series) *table {
	t := &table{Head: []string{"clients/load", targets[0] + " ms"}}
	for _, o := range targets[1:] {
		t.Head = append(t.Head, o+" ms", "× "+targets[0])
	}
	for li, l := range g.labels {
		row := []tcell{txt(l)}
		base := ss[0].Values[li]
		for si, s := range ss {
			v := s.Values[li]
			switch v.State {
			case measured:
				row = append(row, numCell(fmt.Sprintf("%.3f", v.V)))
			case failed:
				row = append(row, failCell(v.Why))
			default:
				row = append(row, numCell("-"))
			}
			if si == 0 {
				continue
			}
			if v.State == measured && base.State == measured && base.V > 0 {
				mark := noiseMark(opRepeats(g.files, targets[0], l, op), opRepeats(g.files, targets[si], l, op))
				row = append(row, numCell(fmt.Sprintf("%.2f%s", v.V/base.V, mark)))
			} else {
				row = append(row, numCell("-"))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func costTable(g *group, targets []string) *table {
	t := &table{Head: []string{"target", "clients/load", "n"}}
	cols := columnsFor(g.files)
	for _, c := range cols {
		t.Head = append(t.Head, c.name)
	}
	for _, tg := range targets {
		for _, l := range g.labels {
			fs := pick(g.files, tg, l)
			if len(fs) == 0 {
				continue
			}
			n := okRepeats(fs)
			if n == 0 {
				t.Rows = append(t.Rows, []tcell{txt(tg), txt(l), {Text: clip(fs[0].Status, 80), Title: fs[0].Status, Failed: true, Span: len(t.Head) - 2}})
				continue
			}
			row := []tcell{txt(tg), txt(l), numCell(fmt.Sprint(n))}
			for _, c := range cols {
				row = append(row, numCell(columnText(fs, c)))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// spaceKind is one of the sizes a cell may have measured: the seeds'
// tables and indexes as the server reports them, the data directory after
// settling, or as the run left it. Two targets' sizes are compared only
// in one kind: one's tables against another's whole directory would count
// the logs and free space of one side only.
type spaceKind struct {
	name string
	get  func(*result.File) int64
}

var spaceKinds = []spaceKind{
	{"tables and indexes", func(f *result.File) int64 { return f.Space.TableBytes }},
	{"settled data directory", func(f *result.File) int64 { return f.Space.SettledBytes }},
	{"data directory as the run left it", func(f *result.File) int64 { return f.Space.Bytes }},
}

// commonSpace is the first kind every target in targets measured in a
// successful cell of files; ok is false when there is none.
func commonSpace(files []*result.File, targets []string) (spaceKind, bool) {
	for _, k := range spaceKinds {
		all := true
		for _, t := range targets {
			has := false
			for _, f := range files {
				if f.Cell.Target == t && f.OK() && k.get(f) > 0 {
					has = true
				}
			}
			all = all && has
		}
		if all {
			return k, true
		}
	}
	return spaceKind{}, false
}

// spaceKindNote says how each kind of size was taken.
var spaceKindNote = map[string]string{
	"tables and indexes":                " as the server reports them after settling (the seeds' figure; logs and free space in the data directory not counted)",
	"settled data directory":            " after the run, flushed and compacted where the engine could settle",
	"data directory as the run left it": "",
}

// mostMeasured is the kind of size most targets measured.
func mostMeasured(files []*result.File) spaceKind {
	best, n := spaceKinds[len(spaceKinds)-1], 0
	for _, k := range spaceKinds {
		var ts []string
		for _, f := range files {
			if f.OK() && k.get(f) > 0 && !contains(ts, f.Cell.Target) {
				ts = append(ts, f.Cell.Target)
			}
		}
		if len(ts) > n {
			best, n = k, len(ts)
		}
	}
	return best
}

// spaceOf is any size the cell measured, 0 when none.
func spaceOf(f *result.File) int64 {
	return max(f.Space.TableBytes, f.Space.SettledBytes, f.Space.Bytes)
}

// spaceTargets are the targets with any size measured in files.
func spaceTargets(files []*result.File) []string {
	var out []string
	for _, f := range files {
		if f.OK() && spaceOf(f) > 0 && !contains(out, f.Cell.Target) {
			out = append(out, f.Cell.Target)
		}
	}
	return out
}

// spaceFigures charts space per target per dataset, one chart per workload
// (space is only comparable over the same tables).
func spaceFigures(gs []*group, baseline string, colors map[string]string) []figure {
	var workloads []string
	for _, g := range gs {
		if w := g.files[0].Cell.Workload; !contains(workloads, w) {
			workloads = append(workloads, w)
		}
	}
	var out []figure
	for wi, w := range workloads {
		out = append(out, spaceFigure(wi, w, gs, baseline, colors))
	}
	return out
}

// spaceFigure is one workload's space chart and table.
func spaceFigure(wi int, w string, gs []*group, baseline string, colors map[string]string) figure {
	var mine []*group
	var targets []string
	for _, g := range gs {
		if g.files[0].Cell.Workload != w {
			continue
		}
		mine = append(mine, g)
		for _, t := range g.targets {
			if !contains(targets, t) {
				targets = append(targets, t)
			}
		}
	}
	if contains(targets, baseline) {
		targets = append([]string{baseline}, without(targets, baseline)...)
	}
	var cats []string
	var all []*result.File
	for _, g := range mine {
		cats = append(cats, strings.TrimPrefix(g.title, w+", "))
		all = append(all, g.files...)
	}
	// the bars are the kind of size every target measured; with none
	// in common, the kind most did, and the others are left out
	measuredBy := spaceTargets(all)
	kind, common := commonSpace(all, measuredBy)
	if !common {
		kind = mostMeasured(all)
	}
	tb := &table{Head: []string{"dataset", "target", "data dir MiB", "settled MiB", "tables+indexes MiB", "load s", "rows loaded"}}
	var ss []series
	for _, t := range targets {
		s := series{Name: t, Color: colors[t]}
		for gi, g := range mine {
			v, row := spaceCell(g, t, kind, cats[gi])
			s.Values = append(s.Values, v)
			if row != nil {
				tb.Rows = append(tb.Rows, row)
			}
		}
		ss = append(ss, s)
	}
	caption := fmt.Sprintf("Bars: %s%s; MiB (2^20 bytes), median over the cells of each dataset. The table has every size each target measured.", kind.name, spaceKindNote[kind.name])
	if !common {
		caption += " Not every target measured it: the others have no bar (their sizes are in the table, of another kind, so not comparable)."
	}
	if note := memoryEngineSpaceNote(all); note != "" {
		caption += " " + note + "."
	}
	return figure{Heading: "Space on disk: " + w,
		Caption: caption,
		Charts:  []*svgChart{barChart(fmt.Sprintf("space-%d", wi+1), cats, ss, "MiB", "%.1f", false)}, Table: tb}
}

// spaceCell is target t's bar in group g (the median of kind) and its
// row of the table (nil for none).
func spaceCell(g *group, t string, kind spaceKind, cat string) (value, []tcell) {
	var ok, bar []*result.File
	var why, note string
	anyOK := false
	for _, f := range g.files {
		if f.Cell.Target != t {
			continue
		}
		switch {
		case f.OK() && spaceOf(f) > 0:
			ok = append(ok, f)
			if kind.get(f) > 0 {
				bar = append(bar, f)
			}
		case f.OK():
			anyOK = true
			note = f.Space.Note
		default:
			why = f.Status
		}
	}
	switch {
	case len(ok) > 0:
		v := value{}
		if len(bar) > 0 {
			v = value{V: median(bar, func(f *result.File) float64 { return float64(kind.get(f)) / mib }), State: measured}
		}
		f := ok[len(ok)/2]
		load := fmt.Sprintf("%.1f", f.Load.Seconds)
		if f.Load.Reused {
			load = "reused"
		}
		return v, []tcell{txt(cat), txt(t),
			numCell(columnText(ok, spaceColumn(func(f *result.File) int64 { return f.Space.Bytes }))),
			numCell(columnText(ok, spaceColumn(func(f *result.File) int64 { return f.Space.SettledBytes }))),
			numCell(columnText(ok, spaceColumn(func(f *result.File) int64 { return f.Space.TableBytes }))), numCell(load), numCell(fmt.Sprint(f.Load.Rows))}
	case anyOK:
		// ran, but its space is unknown (an external server)
		if note == "" {
			note = "not measured"
		}
		return value{}, []tcell{txt(cat), txt(t), {Text: note, Span: 5}}
	case why != "":
		return value{State: failed, Why: why}, []tcell{txt(cat), txt(t), {Text: clip(why, 80), Title: why, Failed: true, Span: 5}}
	}
	return value{}, nil
}

// perInstance are the variables that say which server this is rather than
// how it is set up: their values change between any two servers of one
// target under one memory budget (ports, ids), or are paths (into each
// server's own directory). Listing them would bury the real differences.
// A variable that changes in one target but holds still in another (a
// cache sized from the memory available at each start, against a fixed
// one) is a real difference and is kept.
func perInstance(files []*result.File) map[string]bool {
	type key struct {
		target string
		memory int64
		name   string
	}
	vals := map[key]map[string]bool{}
	cells := map[key]int{}
	for _, f := range files {
		for k, v := range f.Target.Settings {
			kk := key{f.Cell.Target, f.Cell.Conditions.MemoryBytes, k}
			if vals[kk] == nil {
				vals[kk] = map[string]bool{}
			}
			vals[kk][v] = true
			cells[kk]++
		}
	}
	varies, steady, notPath := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for kk, vs := range vals {
		switch {
		case len(vs) > 1:
			varies[kk.name] = true
		case cells[kk] > 1:
			steady[kk.name] = true
		}
		for v := range vs {
			if !strings.HasPrefix(v, "/") {
				notPath[kk.name] = true
			}
		}
	}
	out := map[string]bool{}
	for kk := range vals {
		if varies[kk.name] && !steady[kk.name] || !notPath[kk.name] {
			out[kk.name] = true
		}
	}
	return out
}

// valuesText shows a setting's distinct values; many (a size computed at
// each start) are summed up by their range.
func valuesText(vs []string) string {
	s := append([]string(nil), vs...)
	sort.Strings(s)
	if len(s) <= 3 {
		return strings.Join(s, " | ")
	}
	return fmt.Sprintf("%s | … | %s (%d values)", s[0], s[len(s)-1], len(s))
}

// settingsFigures shows, per kind of server with two or more targets, the
// variables whose values differ between targets, and what shootout set on
// each target.
func settingsFigures(files []*result.File) []figure {
	info, order, applied := settingsOf(files)
	noise := perInstance(files)
	var out []figure
	flavors := map[string][]string{}
	var forder []string
	for _, t := range order {
		fl := info[t].flavor
		if _, ok := flavors[fl]; !ok {
			forder = append(forder, fl)
		}
		flavors[fl] = append(flavors[fl], t)
	}
	for _, fl := range forder {
		if ts := flavors[fl]; len(ts) >= 2 {
			out = append(out, differingSettings(fl, ts, info, noise))
		}
	}
	tb := &table{Head: []string{"target", "setting", "value"}}
	for _, t := range order {
		var keys []string
		for k := range applied[t] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			tb.Rows = append(tb.Rows, []tcell{txt(t), txt(k), txt(valuesText(applied[t][k]))})
		}
	}
	if len(tb.Rows) > 0 {
		out = append(out, figure{Heading: "Settings shootout applied",
			Caption: "Cache sizes from the memory budget and the plan's settings, per target.", Table: tb})
	}
	return out
}

// targetSettings is one target's flavor and its server variables.
type targetSettings struct {
	flavor string
	vals   map[string][]string // variable -> distinct values (over memory budgets)
}

// settingsOf gathers every target's variables and applied settings, the
// targets in the order they first come.
func settingsOf(files []*result.File) (map[string]*targetSettings, []string, map[string]map[string][]string) {
	info := map[string]*targetSettings{}
	var order []string
	applied := map[string]map[string][]string{}
	for _, f := range files {
		t := f.Cell.Target
		if len(f.Target.Settings) == 0 && len(f.Target.Applied) == 0 {
			continue
		}
		ti, ok := info[t]
		if !ok {
			ti = &targetSettings{flavor: f.Target.Flavor, vals: map[string][]string{}}
			info[t] = ti
			order = append(order, t)
			applied[t] = map[string][]string{}
		}
		for k, v := range f.Target.Settings {
			if !contains(ti.vals[k], v) {
				ti.vals[k] = append(ti.vals[k], v)
			}
		}
		for k, v := range f.Target.Applied {
			if !contains(applied[t][k], v) {
				applied[t][k] = append(applied[t][k], v)
			}
		}
	}
	return info, order, applied
}

// differingSettings is the table of the variables whose values differ
// between the targets ts of flavor fl.
func differingSettings(fl string, ts []string, info map[string]*targetSettings, noise map[string]bool) figure {
	vars := map[string]bool{}
	for _, t := range ts {
		for k := range info[t].vals {
			vars[k] = true
		}
	}
	var names []string
	onlyOne, skipped := 0, 0
	for k := range vars {
		if noise[k] {
			skipped++
			continue
		}
		have, first, differ := 0, "", false
		for _, t := range ts {
			vs, ok := info[t].vals[k]
			if !ok {
				continue
			}
			have++
			if have == 1 {
				first = valuesText(vs)
			} else if valuesText(vs) != first {
				differ = true
			}
		}
		switch {
		case have < 2:
			onlyOne++
		case differ:
			names = append(names, k)
		}
	}
	sort.Strings(names)
	tb := &table{Head: append([]string{"variable"}, ts...)}
	for _, k := range names {
		row := []tcell{txt(k)}
		for _, t := range ts {
			if vs, ok := info[t].vals[k]; ok {
				row = append(row, txt(valuesText(vs)))
			} else {
				row = append(row, txt("-"))
			}
		}
		tb.Rows = append(tb.Rows, row)
	}
	return figure{Heading: fmt.Sprintf("Server variables that differ (%s servers)", fl),
		Caption: fmt.Sprintf("%d variables differ between %s. Not shown: %d that exist on one of them only, %d that name a server rather than configure it (ports, ids, paths). Values that changed between cells (a cache sized from the memory at hand) are joined with |. Every variable is in the cell files.",
			len(names), strings.Join(ts, ", "), onlyOne, skipped),
		Table: tb}
}

// header says what ran, where, and under which limits.
func header(p *Page) (what, machine, lims []kv) {
	r := gatherRun(p.Files)
	return headerWhat(p, r), headerMachine(p), headerLimits(p, r)
}

// runFacts is what the header says of a run's cells: the distinct values
// of each condition, in the order they first come.
type runFacts struct {
	workloads, datasets, clients, neighbours, stops, memories, iops, bps, disks []string
	repeats, nok                                                                int
	first, last                                                                 time.Time
	versions                                                                    map[string]string
	targets                                                                     []string
}

func gatherRun(files []*result.File) runFacts {
	r := runFacts{versions: map[string]string{}}
	add := func(xs *[]string, x string) {
		if x != "" && !contains(*xs, x) {
			*xs = append(*xs, x)
		}
	}
	for _, f := range files {
		c := f.Cell
		add(&r.workloads, c.Workload)
		add(&r.datasets, c.Dataset)
		add(&r.clients, fmt.Sprint(c.Clients))
		add(&r.neighbours, c.Conditions.Neighbour)
		stop := c.Duration
		if c.Ops > 0 {
			stop = strings.TrimPrefix(stop+fmt.Sprintf(" or %d operations", c.Ops), " or ")
		}
		if c.Rate > 0 {
			stop += fmt.Sprintf(" at %.0f ops/s", c.Rate)
		}
		add(&r.stops, stop)
		if c.Conditions.MemoryBytes > 0 {
			add(&r.memories, fmt.Sprintf("%d MiB", c.Conditions.MemoryBytes>>20))
		}
		if c.Conditions.IOPS > 0 {
			add(&r.iops, fmt.Sprint(c.Conditions.IOPS))
		}
		add(&r.disks, c.Conditions.Disk)
		if c.Conditions.BPS > 0 {
			add(&r.bps, fmt.Sprintf("%.1f MiB/s", float64(c.Conditions.BPS)/mib))
		}
		r.repeats = max(r.repeats, c.Repeat)
		if f.OK() {
			r.nok++
		}
		if r.first.IsZero() || f.Started.Before(r.first) {
			r.first = f.Started
		}
		if f.Ended.After(r.last) {
			r.last = f.Ended
		}
		add(&r.targets, c.Target)
		if r.versions[c.Target] == "" && f.Target.Version != "" {
			r.versions[c.Target] = f.Target.Version
		}
	}
	sort.SliceStable(r.clients, func(i, j int) bool { return labelLess(r.clients[i]+"/0", r.clients[j]+"/0") })
	sort.SliceStable(r.neighbours, func(i, j int) bool { return labelLess("1/"+r.neighbours[i], "1/"+r.neighbours[j]) })
	return r
}

// headerWhat is what ran: the plan, targets, seed and conditions.
func headerWhat(p *Page, r runFacts) []kv {
	name := "(no run.json)"
	if p.Manifest != nil {
		name = p.Manifest.Name
	}
	var tv []string
	for _, t := range r.targets {
		s := t
		if v := r.versions[t]; v != "" {
			s += " (" + v + ")"
		}
		tv = append(tv, s)
	}
	what := []kv{{"plan", name}, {"targets", strings.Join(tv, ", ")}, {"baseline", p.Baseline}}
	if p.Manifest != nil && len(p.Manifest.Skipped) > 0 {
		var sk []string
		for _, t := range slices.Sorted(maps.Keys(p.Manifest.Skipped)) {
			sk = append(sk, t+": "+p.Manifest.Skipped[t])
		}
		what = append(what, kv{"skipped", strings.Join(sk, "; ")})
	}
	if p.Manifest != nil && p.Manifest.Seed != nil {
		s := p.Manifest.Seed
		differs := strings.Join(s.Differs, "; ")
		if differs == "" {
			differs = "nothing known"
		}
		what = append(what, kv{"seed", fmt.Sprintf("%s: %s; %s", s.Seed, s.Machine, s.Servers)},
			kv{"differs from the seed", differs})
	}
	what = append(what,
		kv{"workloads", strings.Join(r.workloads, ", ")},
		kv{"datasets", strings.Join(r.datasets, ", ")},
		kv{"clients", strings.Join(r.clients, ", ")},
		kv{"neighbours", strings.Join(r.neighbours, ", ")},
		kv{"each cell", strings.Join(r.stops, "; ")},
		kv{"repeats", fmt.Sprint(r.repeats)},
		kv{"cells", fmt.Sprintf("%d (%d ok, %d failed)", len(p.Files), r.nok, len(p.Files)-r.nok)})
	if !r.first.IsZero() {
		what = append(what, kv{"ran", fmt.Sprintf("%s to %s", r.first.UTC().Format("2006-01-02 15:04"), r.last.UTC().Format("15:04 UTC"))})
	}
	return what
}

// headerMachine is the machine and its calibrated disk.
func headerMachine(p *Page) (machine []kv) {
	if p.Manifest != nil {
		m := p.Manifest.Machine
		machine = append(machine, kv{"cores", fmt.Sprint(m.Cores)}, kv{"memory", fmt.Sprintf("%.1f GB", float64(m.MemBytes)/1e9)},
			kv{"kernel", m.Kernel}, kv{"Go", m.GoVersion})
	}
	if c := p.Calibration; c != nil {
		var parts []string
		for _, k := range []string{"randread_qd1", "randwrite_qd1", "randread_qd16", "randwrite_qd16", "randread_qd1_capped", "randwrite_qd1_capped"} {
			if v, ok := c.IOPS[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %.0f", k, v))
			}
		}
		disk := fmt.Sprintf("device %s: random 4k IOPS %s", c.Device, strings.Join(parts, ", "))
		if c.CapIOPS > 0 {
			disk += fmt.Sprintf(" (capped: under --iops %d)", c.CapIOPS)
		}
		machine = append(machine, kv{"disk", disk})
	}
	return machine
}

// headerLimits is the cells' limits and their notes.
func headerLimits(p *Page, r runFacts) []kv {
	orNone := func(xs []string, none string) string {
		if len(xs) == 0 {
			return none
		}
		return strings.Join(xs, ", ")
	}
	applied := 0
	// notes that differ only by a figure (the memory available at each
	// start) are one note
	notes := map[string]int{}
	shown := map[string]string{}
	varied := map[string]bool{}
	var norder []string
	for _, f := range p.Files {
		if f.Limits.Applied {
			applied++
		}
		for _, n := range f.Limits.Notes {
			k := digits.ReplaceAllString(n, "#")
			switch {
			case notes[k] == 0:
				norder = append(norder, k)
				shown[k] = n
			case shown[k] != n:
				varied[k] = true
			}
			notes[k]++
		}
	}
	lims := []kv{{"memory", orNone(r.memories, "no cap")}, {"IOPS cap", orNone(r.iops, "none")}, {"bandwidth cap", orNone(r.bps, "none")},
		{"disk model", orNone(r.disks, "none: this machine's disk")},
		{"applied", fmt.Sprintf("%d of %d cells ran inside their cgroups", applied, len(p.Files))}}
	const maxNotes = 8
	for i, n := range norder {
		if i == maxNotes {
			lims = append(lims, kv{"", fmt.Sprintf("and %d more notes in the cell files", len(norder)-maxNotes)})
			break
		}
		text := shown[n]
		if varied[n] {
			text += " (the figure varies)"
		}
		lims = append(lims, kv{"note", fmt.Sprintf("%s (%d of %d cells)", text, notes[n], len(p.Files))})
	}
	return lims
}

var digits = regexp.MustCompile(`[0-9]+`)

// statementFigures is the slow-query capture: per target, the statements
// that took the most client time over all its cells.
func statementFigures(files []*result.File) []figure {
	targets, top := slowestStatements(files, 8)
	if len(targets) == 0 {
		return nil
	}
	tb := &table{Head: []string{"target", "statement", "calls", "total s", "mean ms", "max ms", "query"}}
	for _, t := range targets {
		for _, st := range top[t] {
			tb.Rows = append(tb.Rows, []tcell{txt(t), txt(st.Name), numCell(fmt.Sprint(st.Calls)),
				numCell(fmt.Sprintf("%.2f", st.TotalMs/1000)), numCell(fmt.Sprintf("%.3f", st.MeanMs)),
				numCell(fmt.Sprintf("%.1f", st.MaxMs)), {Text: clip(st.Query, 90), Title: st.Query}})
		}
	}
	return []figure{{Heading: "Slowest statements by total client time",
		Caption: "Timed by the client from send to last row, retries included, summed over every cell of the target.", Table: tb}}
}

// embeddedCaption says whose server CPU is shootout's own: the targets
// whose cells ran embedded, "" for none.
func embeddedCaption(files []*result.File) string {
	var names []string
	for _, f := range files {
		if embedded(f) && !slices.Contains(names, f.Cell.Target) {
			names = append(names, f.Cell.Target)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " For embedded " + strings.Join(names, ", ") + " the server is shootout itself, client included."
}

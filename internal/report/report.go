// Package report renders result files: side-by-side tables for the
// terminal. It reads results only and runs nothing.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/stats"
)

// group is one table: cells that differ only by target, clients,
// neighbour and repeat.
type group struct {
	key     string
	title   string
	op      string
	files   []*result.File
	targets []string
	labels  []string
}

// Terminal writes the seeds' table for every (workload, dataset, memory)
// group: mean operation time per target per clients/neighbour row, with
// "× slower than the baseline" for every other target, then a table of
// the figures that explain the times. The tables fit the terminal's
// Width: a wider one is split into several that repeat its first columns.
func Terminal(w io.Writer, files []*result.File, baseline string) {
	files = named(files)
	baseline = variantBaseline(files, baseline)
	width := Width()
	writeRowsTables(w, files, baseline)
	for _, g := range groups(files) {
		base := baseline
		if !contains(g.targets, base) {
			base = g.targets[0]
		}
		if siegeStyle(g) {
			writeSiegeTable(w, g, base)
		}
		if statementGroup(g) {
			// a table per statement would be dozens: one table has them all
			writeOpTables(w, width, g, base)
			writeTypeTables(w, width, g, base)
		} else {
			for _, op := range opsOf(g.files) {
				writeTimeTable(w, width, g, base, op)
			}
		}
		writeCostTable(w, width, g)
	}
	spaceTable(w, width, files)
	statementTable(w, width, files)
	var failed []*result.File
	for _, f := range files {
		if !f.OK() {
			failed = append(failed, f)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\n%d failed cell(s):\n", len(failed))
		for _, f := range failed {
			note(w, width, "  ", f.Cell.ID+": "+f.Status)
		}
	}
}

// writeTimeTable is the seed's table of one operation: its trimmed mean time
// per target and row, and each target's ratio to base.
func writeTimeTable(w io.Writer, width int, g *group, base, op string) {
	others := without(g.targets, base)
	fmt.Fprintln(w)
	note(w, width, "", fmt.Sprintf("%s, operation %q: trimmed mean time (ms); × = times slower than %s", g.title, op, base))
	unlimited := unlimitedTargets(g.files)
	mark := func(t string) string {
		if unlimited[t] != "" {
			return t + "*"
		}
		return t
	}
	head := []string{"clients/load", mark(base)}
	for _, t := range others {
		head = append(head, mark(t), "×")
	}
	var rows [][]string
	for _, label := range g.labels {
		bm, bok, bwhy := meanMs(g.files, base, label, op)
		row := []string{label, cellText(bm, bok, bwhy)}
		for _, t := range others {
			m, ok, why := meanMs(g.files, t, label, op)
			row = append(row, cellText(m, ok, why))
			if ok && bok && bm > 0 {
				mark := noiseMark(opRepeats(g.files, base, label, op), opRepeats(g.files, t, label, op))
				row = append(row, fmt.Sprintf("%.2f%s", m/bm, mark))
			} else {
				row = append(row, "-")
			}
		}
		rows = append(rows, row)
	}
	fitTable(w, width, tabwriter.AlignRight, head, rows, 2, 2)
	listFailed(w, width, g.files)
	if len(others) > 0 {
		note(w, width, "  ", noiseLegend)
	}
	for _, t := range g.targets {
		if unlimited[t] != "" {
			note(w, width, "  ", fmt.Sprintf("* %s: %s", t, unlimited[t]))
		}
	}
}

// writeCostTable is a group's throughput and cost per transaction, a row per
// target and clients/load, and the notes under it.
func writeCostTable(w io.Writer, width int, g *group) {
	fmt.Fprintln(w)
	note(w, width, "", fmt.Sprintf("%s: throughput and cost per transaction, each the median over the n repeats that succeeded (%s = not measured)", g.title, notMeasured))
	head := []string{"target", "clients/load", "n"}
	cols := columnsFor(g.files)
	for _, c := range cols {
		head = append(head, c.name)
	}
	head = append(head, "version")
	var rows [][]string
	for _, t := range g.targets {
		for _, label := range g.labels {
			fs := pick(g.files, t, label)
			if len(fs) == 0 {
				continue
			}
			n := okRepeats(fs)
			if n == 0 {
				rows = append(rows, []string{t, label, "0", failedMark})
				continue
			}
			row := []string{t, label, fmt.Sprint(n)}
			for _, c := range cols {
				row = append(row, columnText(fs, c))
			}
			rows = append(rows, append(row, versionOf(fs)))
		}
	}
	fitTable(w, width, tabwriter.AlignRight, head, rows, 3, 1)
	listFailed(w, width, g.files)
	for _, p := range pausedCells(g.files) {
		note(w, width, "  ", "paused: "+p)
	}
	for _, b := range busyHostCells(g.files) {
		note(w, width, "  ", "host busy: "+b)
	}
	for _, c := range saturatedClientCells(g.files) {
		note(w, width, "  ", "client saturated: "+c)
	}
	for _, u := range unfinishedWriteBacks(g.files) {
		note(w, width, "  ", unfinishedMark+" write-back unfinished: "+u)
	}
}

func groups(files []*result.File) []*group {
	return partition(files, noSkip, tableTitle)
}

// labelLess orders "clients/load" labels as the seed's tables do: by
// clients, then 0, 25%, x1, x2, x4.
func labelLess(a, b string) bool {
	var ca, cb int
	var la, lb string
	fmt.Sscanf(strings.Replace(a, "/", " ", 1), "%d %s", &ca, &la)
	fmt.Sscanf(strings.Replace(b, "/", " ", 1), "%d %s", &cb, &lb)
	if ca != cb {
		return ca < cb
	}
	rank := map[string]int{"0": 0, "25%": 1, "x1": 2, "x2": 3, "x4": 4}
	return rank[la] < rank[lb]
}

func opsOf(files []*result.File) []string {
	var ops []string
	for _, f := range files {
		for op := range f.Ops {
			if !contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	sort.Strings(ops)
	return ops
}

func pick(files []*result.File, target, label string) []*result.File {
	var out []*result.File
	for _, f := range files {
		if f.Cell.Target == target && f.Cell.Label() == label {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Throughput.TPS < out[j].Throughput.TPS })
	return out
}

// meanMs is the median over repeats of the trimmed mean time of op; when
// none has it, why is the status of a failed repeat, or "-".
func meanMs(files []*result.File, target, label, op string) (float64, bool, string) {
	var vals []float64
	why := ""
	for _, f := range pick(files, target, label) {
		if !f.OK() {
			why = f.Status
			continue
		}
		if o, ok := f.Ops[op]; ok && o.Count > 0 {
			vals = append(vals, o.MeanMs)
		}
	}
	if len(vals) == 0 {
		if why == "" {
			why = "-"
		}
		return 0, false, why
	}
	return stats.Median(vals), true, ""
}

// median is the median over the successful repeats in fs, 0 when none
// succeeded (callers check that first).
func median(fs []*result.File, v func(*result.File) float64) float64 {
	x, _, _ := repeatFigureOf(fs, func(f *result.File) (float64, bool) { return v(f), true })
	return x
}

// versionOf is the server version the repeats ran, or the versions.
func versionOf(fs []*result.File) string {
	var vs []string
	for _, f := range fs {
		if f.OK() && f.Target.Version != "" && !contains(vs, f.Target.Version) {
			vs = append(vs, f.Target.Version)
		}
	}
	return strings.Join(vs, " / ")
}

func cellText(v float64, ok bool, why string) string {
	switch {
	case ok:
		return fmt.Sprintf("%.3f", v)
	case why == "-":
		return why
	}
	return failedMark
}

// failedMark stands for a failed cell inside a table: its reason, listed
// under the table, would widen the column for every row.
const failedMark = "failed"

// listFailed names, under a table, its failed cells and their reasons.
func listFailed(w io.Writer, width int, files []*result.File) {
	for _, f := range files {
		if !f.OK() {
			note(w, width, "  ", fmt.Sprintf("failed: %s %s repeat %d: %s", f.Cell.Target, f.Cell.Label(), f.Cell.Repeat, clip(f.Status, 160)))
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func without(xs []string, x string) []string {
	var out []string
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// spaceTable is the seed's space figure: per workload and dataset, the
// settled size of the tables and indexes on each target (median over the
// cells that measured it), in MiB.
func spaceTable(w io.Writer, width int, files []*result.File) {
	// conditions is what else the cells' table titles say: shown only
	// where one workload and dataset ran under several, which are kept
	// apart as everywhere else
	type key struct{ workload, dataset, conditions string }
	var keys []key
	var targets []string
	by := map[key]map[string][]*result.File{}
	variants := map[[2]string]int{}
	for _, g := range groups(files) {
		for _, f := range g.files {
			if !f.OK() || f.Space.TableBytes <= 0 {
				continue
			}
			c := f.Cell
			k := key{c.Workload, c.Dataset, strings.TrimPrefix(strings.TrimPrefix(g.title, tableTitle(c)), ", ")}
			if by[k] == nil {
				by[k] = map[string][]*result.File{}
				keys = append(keys, k)
				variants[[2]string{k.workload, k.dataset}]++
			}
			by[k][c.Target] = append(by[k][c.Target], f)
			if !contains(targets, c.Target) {
				targets = append(targets, c.Target)
			}
		}
	}
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(w, "\nspace: tables and indexes after settling (MiB, median over cells)\n")
	var rows [][]string
	for _, k := range keys {
		ds := k.dataset
		if variants[[2]string{k.workload, k.dataset}] > 1 && k.conditions != "" {
			ds += " (" + k.conditions + ")"
		}
		row := []string{k.workload, ds}
		for _, t := range targets {
			fs := by[k][t]
			if len(fs) == 0 {
				row = append(row, "-")
				continue
			}
			row = append(row, fmt.Sprintf("%.1f", median(fs, func(f *result.File) float64 { return float64(f.Space.TableBytes) })/(1<<20)))
		}
		rows = append(rows, row)
	}
	fitTable(w, width, tabwriter.AlignRight, append([]string{"workload", "dataset"}, targets...), rows, 2, 1)
	if text := memoryEngineSpaceNote(files); text != "" {
		note(w, width, "  ", text)
	}
}

// memoryEngineSpaceNote warns, when a MEMORY table's size is shown, that
// the figure is what the engine allocated rather than what its rows take:
// MariaDB's MEMORY engine allocates in blocks of a tenth of the rows
// max_heap_table_size allows (up to 512 MiB each), which shootout sizes to
// the cell's budget, and reports whole blocks though only the pages
// written are resident. 1 M rows of the kv table: 1,024 MiB reported,
// 48 MB of server RSS.
func memoryEngineSpaceNote(files []*result.File) string {
	var targets []string
	for _, f := range files {
		if f.OK() && f.Space.TableBytes > 0 && strings.EqualFold(f.Target.Engine, "memory") && !contains(targets, f.Cell.Target) {
			targets = append(targets, f.Cell.Target)
		}
	}
	if len(targets) == 0 {
		return ""
	}
	return strings.Join(targets, ", ") + ": the MEMORY engine reports the blocks it allocated, sized from max_heap_table_size (on a server shootout started, the cell's memory budget), not what its rows take; its resident memory is in the cell's peak RSS"
}

// slowestStatements sums each target's statement timings over all its
// cells and keeps the n largest by total time: where a slow plan (a search
// without its index) shows first.
func slowestStatements(files []*result.File, n int) (targets []string, top map[string][]result.Statement) {
	by := map[string]map[string]*result.Statement{}
	for _, f := range files {
		if len(f.Statements) == 0 {
			continue
		}
		t := f.Cell.Target
		if by[t] == nil {
			by[t] = map[string]*result.Statement{}
			targets = append(targets, t)
		}
		for _, st := range f.Statements {
			a := by[t][st.Name]
			if a == nil {
				a = &result.Statement{Name: st.Name, Query: st.Query}
				by[t][st.Name] = a
			}
			a.Calls += st.Calls
			a.TotalMs += st.TotalMs
			a.MaxMs = max(a.MaxMs, st.MaxMs)
		}
	}
	top = map[string][]result.Statement{}
	for _, t := range targets {
		var list []result.Statement
		for _, a := range by[t] {
			a.MeanMs = a.TotalMs / float64(max(a.Calls, 1))
			list = append(list, *a)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].TotalMs > list[j].TotalMs })
		top[t] = list[:min(n, len(list))]
	}
	return targets, top
}

// statementTable prints slowestStatements, five per target.
func statementTable(w io.Writer, width int, files []*result.File) {
	targets, top := slowestStatements(files, 5)
	if len(targets) == 0 {
		return
	}
	fmt.Fprintf(w, "\nslowest statements by total client time, per target (all its cells)\n")
	var rows [][]string
	for _, t := range targets {
		for _, a := range top[t] {
			rows = append(rows, []string{t, a.Name, fmt.Sprint(a.Calls), fmt.Sprintf("%.2f", a.TotalMs/1000), fmt.Sprintf("%.3f", a.MeanMs), fmt.Sprintf("%.1f", a.MaxMs)})
		}
	}
	fitTable(w, width, 0, []string{"target", "statement", "calls", "total s", "mean ms", "max ms"}, rows, 2, 1)
}

// A pause is worth a line under the table when it is long in itself and
// against the cell's own operations: a stall the averages hide.
const (
	notablePause         = time.Second
	notablePauseVsMedian = 10
)

// pausedCells says which cells that succeeded had a notable pause: a
// stretch in which clients waited and no operation finished.
func pausedCells(files []*result.File) []string {
	var out []string
	for _, f := range files {
		t := f.Throughput
		pause := time.Duration(t.LongestPauseS * float64(time.Second))
		if !f.OK() || pause < notablePause || t.LongestPauseS*1000 < notablePauseVsMedian*t.Latency.P50Ms {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s repeat %d: no operation finished for %.1f s from %.1f s into the run (median operation %.3g ms)",
			f.Cell.Target, f.Cell.Label(), f.Cell.Repeat, t.LongestPauseS, t.PauseFromS, t.Latency.P50Ms))
	}
	return out
}

// busyHostCells says which cells ran while the hypervisor or processes
// outside shootout took more than metrics.BusyHostShare of the CPUs: their
// times are slower than the machine's own, and a difference that rests on
// them may be the host's.
func busyHostCells(files []*result.File) []string {
	var out []string
	for _, f := range files {
		h := f.Server.Host
		if !f.OK() || h.Busy() <= metrics.BusyHostShare {
			continue
		}
		others := "other processes not known (external server)"
		if h.OtherProcessesShare != nil {
			others = fmt.Sprintf("other processes %.0f%%", *h.OtherProcessesShare*100)
		}
		out = append(out, fmt.Sprintf("%s %s repeat %d: others took %.0f%% of the CPUs during the run (steal %.0f%%, %s)",
			f.Cell.Target, f.Cell.Label(), f.Cell.Repeat, h.Busy()*100, h.StealShare*100, others))
	}
	return out
}

// saturatedClientCells says which cells' agents were saturated: their
// figures measured the client as much as the server (results.md).
func saturatedClientCells(files []*result.File) []string {
	var out []string
	for _, f := range files {
		if !f.OK() || !f.Client.Saturated {
			continue
		}
		var why []string
		for i, a := range f.Client.Agents {
			switch {
			case len(a.SaturatedBy) > 0:
				why = append(why, fmt.Sprintf("agent %d %s", i+1, strings.Join(a.SaturatedBy, ", ")))
			case a.Saturated: // files written before saturated_by
				why = append(why, fmt.Sprintf("agent %d %.2f cores, %.0f%% of its clients' time on or waiting for a CPU", i+1, a.CPUCores, a.CPUShare*100))
			}
		}
		out = append(out, fmt.Sprintf("%s %s repeat %d: %s; more agents, or agents on more CPUs, would drive more",
			f.Cell.Target, f.Cell.Label(), f.Cell.Repeat, strings.Join(why, "; ")))
	}
	return out
}

// unlimitedTargets names the targets whose cells asked for memory or disk
// limits that were not applied (an embedded database, an external server,
// --allow-unlimited), or that should have read from memory and did not
// (kv), with the reason: their times are not comparable.
func unlimitedTargets(files []*result.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		if im := f.Server.InMemory; im != nil && !im.OK && f.OK() {
			out[f.Cell.Target] = im.Note
			continue
		}
		c := f.Cell.Conditions
		if f.Limits.Applied || (c.MemoryBytes == 0 && c.IOPS == 0 && c.BPS == 0) {
			continue
		}
		why := "limits not applied"
		for _, n := range f.Limits.Notes {
			if strings.Contains(n, "not applied") {
				why = n
				break
			}
		}
		out[f.Cell.Target] = why
	}
	return out
}

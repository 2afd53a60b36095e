package report

import (
	"fmt"

	"shootout/internal/result"
	"shootout/internal/stats"
)

// This file is the cell model the terminal, CSV and HTML share: which
// repeats make a figure, how they are combined, and how a figure that was
// not measured is shown. Every figure of a (target, label) row is the
// median over the repeats that succeeded and measured it; a figure no
// repeat measured is "n/a" on screen and an empty CSV field, never 0.

// notMeasured is how the terminal and HTML show a figure no repeat has.
const notMeasured = "n/a"

// repeatFigureOf is the median over the successful repeats in fs that
// measured the figure, and how many did.
func repeatFigureOf(fs []*result.File, get func(*result.File) (float64, bool)) (v float64, n int, ok bool) {
	var xs []float64
	for _, f := range fs {
		if !f.OK() {
			continue
		}
		if x, measured := get(f); measured {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return 0, 0, false
	}
	return stats.Median(xs), len(xs), true
}

// costColumn is one column of the cost table, in the unit its name says.
type costColumn struct {
	name, format string
	get          func(*result.File) (float64, bool)
}

const kib, mib = 1024.0, 1024.0 * 1024.0

func perTx(f *result.File) bool  { return f.Throughput.Events > 0 }
func server(f *result.File) bool { return f.Server.Measured && perTx(f) }

// costColumns are the figures that explain the times, shared by the
// terminal's and the HTML report's cost tables.
var costColumns = []costColumn{
	{"tps", "%.1f", func(f *result.File) (float64, bool) { return f.Throughput.TPS, perTx(f) }},
	{"qps", "%.1f", func(f *result.File) (float64, bool) { return f.Throughput.QPS, perTx(f) }},
	{"p95 ms", "%.2f", func(f *result.File) (float64, bool) {
		return f.Throughput.Latency.P95Ms, f.Throughput.Latency.Count > 0
	}},
	{"err/s", "%.2f", func(f *result.File) (float64, bool) {
		if f.Throughput.Seconds <= 0 {
			return 0, false
		}
		return float64(f.Throughput.Errors) / f.Throughput.Seconds, true
	}},
	certColumn,
	{"srv CPU ms/tx", "%.3f", func(f *result.File) (float64, bool) {
		cpu, known := f.Server.CPUPerOp()
		return 1000 * cpu, known && perTx(f)
	}},
	{"disk KiB written/tx", "%.2f", func(f *result.File) (float64, bool) { return f.Server.WriteBytesPerOp / kib, server(f) }},
	{"log KiB/tx", "%.2f", func(f *result.File) (float64, bool) {
		if f.Server.EngineWrites == nil {
			return 0, false
		}
		return f.Server.EngineWrites.LogBytesPerOp / kib, true
	}},
	{"data KiB/tx", "%.2f", func(f *result.File) (float64, bool) {
		if f.Server.EngineWrites == nil {
			return 0, false
		}
		return f.Server.EngineWrites.DataBytesPerOp / kib, true
	}},
	{"write amp", "%.1f", func(f *result.File) (float64, bool) {
		if f.Server.WriteAmplification == nil {
			return 0, false
		}
		return *f.Server.WriteAmplification, true
	}},
	writeBackColumn,
	{"disk KiB read/tx", "%.2f", func(f *result.File) (float64, bool) { return f.Server.ReadBytesPerOp / kib, server(f) }},
	{"ctx switches/tx", "%.1f", func(f *result.File) (float64, bool) { return f.Server.ContextSwitchesPerOp, server(f) }},
	{"client CPU ms/tx", "%.3f", func(f *result.File) (float64, bool) {
		// an embedded database runs in the client: its CPU is the server's column
		return 1000 * f.Client.CPUSecondsPerOp, perTx(f) && !embedded(f)
	}},
	// --app cells: the application server's CPU beside the database's,
	// the database's share of the two, its statements per HTTP request
	{"app CPU ms/tx", "%.3f", func(f *result.File) (float64, bool) {
		if f.App == nil {
			return 0, false
		}
		return 1000 * f.App.CPUSecondsPerOp, true
	}},
	{"db share %", "%.0f", func(f *result.File) (float64, bool) {
		if f.App == nil || embedded(f) {
			return 0, false
		}
		return 100 * f.App.DBShare, true
	}},
	{"stmts/request", "%.1f", func(f *result.File) (float64, bool) {
		if f.App == nil || f.App.StatementsPerRequest == 0 {
			return 0, false
		}
		return f.App.StatementsPerRequest, true
	}},
	{"peak RSS MiB", "%.0f", func(f *result.File) (float64, bool) {
		return float64(f.Server.PeakRSSBytes) / mib, f.Server.Measured && f.Server.PeakRSSBytes > 0
	}},
	{"space MiB", "%.1f", func(f *result.File) (float64, bool) { return float64(f.Space.Bytes) / mib, f.Space.Bytes > 0 }},
	{"settled MiB", "%.1f", func(f *result.File) (float64, bool) {
		return float64(f.Space.SettledBytes) / mib, f.Space.SettledBytes > 0
	}},
	{"load s", "%.1f", func(f *result.File) (float64, bool) { return f.Load.Seconds, !f.Load.Reused && f.Load.Seconds > 0 }},
}

// certColumn is a cluster's certification conflicts per second, apart
// from err/s's deadlocks: conflicts between nodes' write sets, which grow
// with the nodes written to, where a deadlock is one server's lock cycle.
var certColumn = costColumn{"cert fail/s", "%.2f", func(f *result.File) (float64, bool) {
	if f.Throughput.Seconds <= 0 || len(f.Nodes) == 0 {
		return 0, false
	}
	return float64(f.Throughput.ErrorsBy[certConflict]) / f.Throughput.Seconds, true
}}

// certConflict is errclass.CertConflict's name in errors_by_class.
const certConflict = "cert_conflict"

// appColumns are the cost columns of --app cells only.
var appColumns = map[string]bool{"app CPU ms/tx": true, "db share %": true, "stmts/request": true}

// columnsFor is costColumns without the application's columns when no
// cell went through an application, and without the cluster's when no
// cell ran on one.
func columnsFor(files []*result.File) []costColumn {
	app, cluster := false, false
	for _, f := range files {
		app = app || f.App != nil
		cluster = cluster || len(f.Nodes) > 0
	}
	var out []costColumn
	for _, c := range costColumns {
		if (app || !appColumns[c.name]) && (cluster || c.name != certColumn.name) {
			out = append(out, c)
		}
	}
	return out
}

// columnText is a column's median over repeats, or n/a.
func columnText(fs []*result.File, c costColumn) string {
	v, _, ok := repeatFigureOf(fs, c.get)
	if !ok {
		return notMeasured
	}
	s := fmt.Sprintf(c.format, v)
	if c.name == writeBackColumn.name && len(unfinishedWriteBacks(fs)) > 0 {
		s += unfinishedMark
	}
	return s
}

// writeBackColumn is the seconds the write-back after the run took: tps
// is over the run alone, while the bytes, IOs and CPU per transaction
// include the write-back.
var writeBackColumn = costColumn{"wb s", "%.1f", func(f *result.File) (float64, bool) {
	return f.Server.WriteBackS, f.Server.WriteBackFinished != nil || (f.Server.Measured && f.Server.WriteBackS > 0)
}}

// unfinishedMark follows the write-back seconds of a row in which a
// repeat's write-back stopped with data left (named under the table).
const unfinishedMark = "!"

// unfinishedWriteBacks says which successful cells' write-backs stopped
// with data still dirty, and how much: their bytes and IOs per
// transaction are short of it.
func unfinishedWriteBacks(files []*result.File) []string {
	var out []string
	for _, f := range files {
		s := f.Server
		if !f.OK() || s.WriteBackFinished == nil || *s.WriteBackFinished {
			continue
		}
		left := s.WriteBackLeft + " left"
		if s.WriteBackLeftBytes >= 0 {
			left = fmt.Sprintf("%.1f MiB left (%s)", float64(s.WriteBackLeftBytes)/mib, s.WriteBackLeft)
		}
		out = append(out, fmt.Sprintf("%s %s repeat %d: wb %.1f s unfinished, %s; its bytes and IOs per transaction are short of it",
			f.Cell.Target, f.Cell.Label(), f.Cell.Repeat, s.WriteBackS, left))
	}
	return out
}

// okRepeats counts the repeats a row's medians come from.
func okRepeats(fs []*result.File) int {
	n := 0
	for _, f := range fs {
		if f.OK() {
			n++
		}
	}
	return n
}

// embedded is a target that runs inside shootout, as its cells record:
// no network hop, and its CPU cannot be told apart from the client's.
func embedded(f *result.File) bool { return f.Target.Embedded }

// mibText is a size in MiB, or n/a when it was not measured.
func mibText(b int64) string {
	if b <= 0 {
		return notMeasured
	}
	return fmt.Sprintf("%.1f", float64(b)/mib)
}

// spaceColumn is a size in MiB, measured when the server reported it.
func spaceColumn(size func(*result.File) int64) costColumn {
	return costColumn{"MiB", "%.1f", func(f *result.File) (float64, bool) { return float64(size(f)) / mib, size(f) > 0 }}
}

// opRepeats is each successful repeat's trimmed mean time of op: the
// sample the "× slower" ratios are tested on.
func opRepeats(files []*result.File, target, label, op string) []float64 {
	var xs []float64
	for _, f := range pick(files, target, label) {
		if o, ok := f.Ops[op]; f.OK() && ok && o.Count > 0 {
			xs = append(xs, o.MeanMs)
		}
	}
	return xs
}

// Noise marks, beside a ratio, what the repeats say about it.
const (
	withinNoise = "~" // not significant: exact Mann-Whitney over repeats, p >= 0.05
	tooFew      = "?" // too few repeats for any difference to be significant
)

// reportAlpha is the level of the report's noise marks: a run's own
// --alpha is not recorded in its files, so every report reads at 0.05.
const reportAlpha = 0.05

// noiseMark tells a ratio of two targets' times apart from the noise of
// their repeats: "" when significant, "~" when not, "?" when there are too
// few repeats to ever tell (one run each has no noise estimate at all).
func noiseMark(a, b []float64) string {
	if len(a) < 2 || len(b) < 2 {
		return tooFew
	}
	c := stats.Compare(a, b, reportAlpha)
	switch {
	case c.NeedN > 0:
		return tooFew
	case !c.Significant:
		return withinNoise
	}
	return ""
}

// noiseLegend explains the marks.
const noiseLegend = "~ = within the noise (exact Mann-Whitney U over the repeats, p ≥ 0.05); ? = too few repeats to tell (4+ per cell can; one run has no noise estimate)"

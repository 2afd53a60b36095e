// Package report renders result files: side-by-side tables for the
// terminal. It reads results only and runs nothing.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"shootout/internal/result"
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
// the figures that explain the times.
func Terminal(w io.Writer, files []*result.File, baseline string) {
	for _, g := range groups(files) {
		base := baseline
		if !contains(g.targets, base) {
			base = g.targets[0]
		}
		others := without(g.targets, base)
		for _, op := range opsOf(g.files) {
			fmt.Fprintf(w, "\n%s, operation %q: trimmed mean time (ms); × = times slower than %s\n", g.title, op, base)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			head := []string{"clients/load", base}
			for _, t := range others {
				head = append(head, t, "×")
			}
			fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
			for _, label := range g.labels {
				row := []string{label}
				bm, bok, bwhy := meanMs(g.files, base, label, op)
				row = append(row, cellText(bm, bok, bwhy))
				for _, t := range others {
					m, ok, why := meanMs(g.files, t, label, op)
					row = append(row, cellText(m, ok, why))
					if ok && bok && bm > 0 {
						row = append(row, fmt.Sprintf("%.2f", m/bm))
					} else {
						row = append(row, "-")
					}
				}
				fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			}
			tw.Flush()
		}
		fmt.Fprintf(w, "\n%s: throughput and cost per transaction (medians over repeats)\n", g.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "target\tclients/load\ttps\tqps\tp95 ms\terr/s\tsrv CPU ms/tx\tsrv KB written/tx\tclient CPU ms/tx\tspace MB\tsettled MB\tload s\tversion\t")
		for _, t := range g.targets {
			for _, label := range g.labels {
				fs := pick(g.files, t, label)
				if len(fs) == 0 {
					continue
				}
				f := fs[len(fs)/2]
				if !f.OK() {
					fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\t\t\t\t\t\t\t\n", t, label, shortStatus(f.Status))
					continue
				}
				tp := f.Throughput
				errps := 0.0
				if tp.Seconds > 0 {
					errps = float64(tp.Errors) / tp.Seconds
				}
				load := fmt.Sprintf("%.1f", f.Load.Seconds)
				if f.Load.Reused {
					load = "reused"
				}
				fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.2f\t%.2f\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\t\n", t, label,
					median(fs, func(f *result.File) float64 { return f.Throughput.TPS }),
					median(fs, func(f *result.File) float64 { return f.Throughput.QPS }),
					tp.Latency.P95Ms, errps,
					serverFig(f, f.Server.CPUSecondsPerOp*1000, "%.3f"), serverFig(f, f.Server.WriteBytesPerOp/1024, "%.1f"),
					f.Client.CPUSecondsPerOp*1000, mbText(f.Space.Bytes), mbText(f.Space.SettledBytes), load, f.Target.Version)
			}
		}
		tw.Flush()
	}
	var failed []*result.File
	for _, f := range files {
		if !f.OK() {
			failed = append(failed, f)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\n%d failed cell(s):\n", len(failed))
		for _, f := range failed {
			fmt.Fprintf(w, "  %s: %s\n", f.Cell.ID, f.Status)
		}
	}
}

func groups(files []*result.File) []*group {
	byKey := map[string]*group{}
	var order []string
	for _, f := range files {
		c := f.Cell
		key := fmt.Sprintf("%s|%s|%d|%v", c.Workload, c.Dataset, c.Conditions.MemoryBytes, c.Params)
		g, ok := byKey[key]
		if !ok {
			title := fmt.Sprintf("%s, dataset %s", c.Workload, c.Dataset)
			if c.Conditions.MemoryBytes > 0 {
				title += fmt.Sprintf(", memory %dM", c.Conditions.MemoryBytes>>20)
			}
			g = &group{key: key, title: title}
			byKey[key] = g
			order = append(order, key)
		}
		g.files = append(g.files, f)
		if !contains(g.targets, c.Target) {
			g.targets = append(g.targets, c.Target)
		}
		if !contains(g.labels, c.Label()) {
			g.labels = append(g.labels, c.Label())
		}
	}
	var out []*group
	for _, k := range order {
		g := byKey[k]
		sort.SliceStable(g.labels, func(i, j int) bool { return labelLess(g.labels[i], g.labels[j]) })
		out = append(out, g)
	}
	return out
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
	sort.Float64s(vals)
	return vals[len(vals)/2], true, ""
}

func median(fs []*result.File, v func(*result.File) float64) float64 {
	var xs []float64
	for _, f := range fs {
		if f.OK() {
			xs = append(xs, v(f))
		}
	}
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

func cellText(v float64, ok bool, why string) string {
	if !ok {
		return shortStatus(why)
	}
	return fmt.Sprintf("%.3f", v)
}

func serverFig(f *result.File, v float64, format string) string {
	if !f.Server.Measured {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

func mbText(b int64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", float64(b)/1e6)
}

func shortStatus(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
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

package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/stats"
)

// figure is one number a repeat contributes to the sample compare tests:
// measured is false when the repeat has no such figure (an external
// server's CPU, a workload without that operation), and then the repeat
// is left out of that figure's sample rather than counted as 0.
type repeatFigure struct {
	name string
	// higherIsBetter tells the verdict which sign is a gain.
	higherIsBetter bool
	get            func(*result.File) (v float64, measured bool)
}

func repeatFigures(ops []string) []repeatFigure {
	fs := []repeatFigure{
		{"tps", true, func(f *result.File) (float64, bool) { return f.Throughput.TPS, f.Throughput.Events > 0 }},
		{"qps", true, func(f *result.File) (float64, bool) { return f.Throughput.QPS, f.Throughput.Events > 0 }},
		{"p95 ms (all ops)", false, func(f *result.File) (float64, bool) {
			return f.Throughput.Latency.P95Ms, f.Throughput.Latency.Count > 0
		}},
	}
	for _, op := range ops {
		op := op
		fs = append(fs, repeatFigure{"mean ms " + op + " (trimmed)", false, func(f *result.File) (float64, bool) {
			o, ok := f.Ops[op]
			return o.MeanMs, ok && o.Count > 0
		}})
	}
	return append(fs,
		repeatFigure{"server CPU ms/op", false, func(f *result.File) (float64, bool) {
			cpu, known := f.Server.CPUPerOp()
			return 1000 * cpu, known && f.Throughput.Events > 0
		}},
		repeatFigure{"written KiB/op", false, func(f *result.File) (float64, bool) {
			return f.Server.WriteBytesPerOp / 1024, f.Server.Measured && f.Throughput.Events > 0
		}},
	)
}

// Compare matches the cells of two runs and says, per figure, whether B
// differs from A beyond the noise. The sample of a cell is its repeats (one
// figure per repeat), never the intervals inside one run: those are
// autocorrelated, include the warm-up and carry none of the run-to-run
// variance, so one run against another would always look significant.
// Cells are compared only when every recorded condition is equal; the
// pairs refused are listed with their differences. It returns how many
// cells it compared.
func Compare(w io.Writer, a, b []*result.File, alpha float64) int {
	ga, gb := groupRepeats(a), groupRepeats(b)
	var keys []string
	for k := range ga {
		if _, ok := gb[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var refused []string
	var comparable []string
	for _, k := range keys {
		if d := repeatDiffs(ga[k], gb[k]); len(d) > 0 {
			refused = append(refused, fmt.Sprintf("  %s: %s", k, strings.Join(d, "; ")))
			continue
		}
		comparable = append(comparable, k)
	}
	if len(comparable) == 0 {
		fmt.Fprintln(w, "no cell ran successfully in both directories under the same conditions (cells match by target, workload, dataset, clients and every recorded condition)")
	} else {
		// the medians' intervals are at stats.Confidence; the change's is
		// cut where the U test leaves alpha, so its level follows --alpha
		med, chg := levelText(stats.Confidence), levelText(1-alpha)
		width := Width()
		note(w, width, "", fmt.Sprintf("The sample of a cell is its repeats (one figure per repeat). Medians with their %s interval; change with its %s interval; exact Mann-Whitney U test, a change is significant when p < %.2g, \"~\" otherwise.", med, chg, alpha))
		bare := compareCells(w, width, comparable, ga, gb, alpha)
		if bare {
			note(w, width, "", fmt.Sprintf("A median without [an interval]: its %s interval needs 6 or more repeats.", med))
		}
		var busyA, busyB []*result.File
		for _, k := range comparable {
			busyA, busyB = append(busyA, ga[k]...), append(busyB, gb[k]...)
		}
		if la, lb := busyHostCells(busyA), busyHostCells(busyB); len(la)+len(lb) > 0 {
			fmt.Fprintf(w, "repeats that ran while others took more than %.0f%% of the CPUs: slower than this machine's own, so a change that rests on them may be the host's\n", metrics.BusyHostShare*100)
			for _, l := range la {
				fmt.Fprintf(w, "  A: %s\n", l)
			}
			for _, l := range lb {
				fmt.Fprintf(w, "  B: %s\n", l)
			}
		}
	}
	if len(refused) > 0 {
		fmt.Fprintf(w, "%d cell(s) not compared: their conditions differ, so they did not measure the same thing\n%s\n", len(refused), strings.Join(refused, "\n"))
	}
	onlyA, onlyB := 0, 0
	for k := range ga {
		if _, ok := gb[k]; !ok {
			onlyA++
		}
	}
	for k := range gb {
		if _, ok := ga[k]; !ok {
			onlyB++
		}
	}
	if onlyA+onlyB > 0 {
		fmt.Fprintf(w, "%d cell(s) only in A, %d only in B (not compared)\n", onlyA, onlyB)
	}
	return len(comparable)
}

// repeatDiffs is every condition in which a repeat of either side differs
// from A's first: the pair is a sample of one thing only when it is empty.
// A directory can hold one cell name run under two conditions (another
// --duration into the same --out), so each repeat is checked, not only the
// first of each side.
func repeatDiffs(a, b []*result.File) []string {
	var out []string
	check := func(first *result.File, fs []*result.File, where string) {
		for _, f := range fs {
			for _, d := range first.Cell.ConditionDiff(f.Cell) {
				if d += " (" + where + ")"; !contains(out, d) {
					out = append(out, d)
				}
			}
		}
	}
	check(a[0], a[1:], "between A's repeats")
	check(b[0], b[1:], "between B's repeats")
	check(a[0], b[:1], "A vs B")
	return out
}

// groupRepeats gathers the successful repeats of each cell; a failed
// repeat is not a sample of the cell's figures.
func groupRepeats(fs []*result.File) map[string][]*result.File {
	m := map[string][]*result.File{}
	for _, f := range fs {
		if f.OK() {
			k := f.Cell.NameKey()
			m[k] = append(m[k], f)
		}
	}
	return m
}

func sampleOf(fs []*result.File, fig repeatFigure) []float64 {
	var xs []float64
	for _, f := range fs {
		if v, ok := fig.get(f); ok {
			xs = append(xs, v)
		}
	}
	return xs
}

// levelText is a confidence level as a percentage: 95%, 99%, 99.9%.
func levelText(level float64) string {
	return strconv.FormatFloat(math.Round(1e5*level)/1e3, 'f', -1, 64) + "%"
}

func summaryText(s stats.Summary) string {
	if !s.Bounded() {
		return figText(s.Median) // the line under the tables says why
	}
	return fmt.Sprintf("%s [%s, %s]", figText(s.Median), figText(s.Lo), figText(s.Hi))
}

func figText(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.4f", v)
	}
}

// changeText adds to the comparison whether a significant change is a gain
// or a loss for that figure.
func changeText(c stats.Comparison, higherIsBetter bool) string {
	s := c.String()
	if !c.Significant || c.Delta == 0 || math.IsNaN(c.Delta) {
		return s
	}
	if (c.Delta > 0) == higherIsBetter {
		return s + " (better)"
	}
	return s + " (worse)"
}

// compareCells writes each comparable cell's table: its name on a line
// of its own, then its figures; it says whether a median went without its
// interval.
func compareCells(w io.Writer, width int, comparable []string, ga, gb map[string][]*result.File, alpha float64) (bare bool) {
	med, chg := levelText(stats.Confidence), levelText(1-alpha)
	head := []string{"figure", fmt.Sprintf("A median [%s CI]", med), fmt.Sprintf("B median [%s CI]", med), "n A/B", fmt.Sprintf("change [%s CI]", chg)}
	for _, k := range comparable {
		var rows [][]string
		for _, fig := range repeatFigures(opsOf(append(append([]*result.File{}, ga[k]...), gb[k]...))) {
			sa, sb := sampleOf(ga[k], fig), sampleOf(gb[k], fig)
			if len(sa) == 0 || len(sb) == 0 {
				continue
			}
			c := stats.Compare(sa, sb, alpha)
			bare = bare || !c.A.Bounded() || !c.B.Bounded()
			rows = append(rows, []string{"  " + fig.name, summaryText(c.A), summaryText(c.B), fmt.Sprintf("%d/%d", c.A.N, c.B.N), changeText(c, fig.higherIsBetter)})
		}
		// the cell on a line of its own: its name alone is 60-80
		// columns, which beside the figures made a 210-column table
		fmt.Fprintf(w, "\n%s\n", k)
		fitTable(w, width, 0, head, rows, 1, 1)
	}
	return bare
}

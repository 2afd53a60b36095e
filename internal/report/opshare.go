package report

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"shootout/internal/result"
	"shootout/internal/sections"
	"shootout/internal/stats"
)

// This file is the per-statement comparison (sections.Statements): for
// workloads whose operations are statements or their fingerprints, each
// operation's count and p50/p99 per target, × slower than the baseline,
// and the operations ordered by their share of the difference in the
// whole run's time. The whole run's time on a target is the baseline's
// count of each operation times the target's mean: the same statements,
// as a replay sends them, and a fair sum where a timed run's counts
// differ with its speed. A statement a target never completed is left
// out of that target's whole and of the baseline's it is compared with:
// both sides sum the same statements, and the headline names the ones
// left out.

// opLine is one operation of the comparison; its maps are per target.
type opLine struct {
	op         string
	count      map[string]int64
	mean       map[string]float64
	p50, p99   map[string]float64
	mark       map[string]string  // noise mark of the target's ratio
	diff       map[string]float64 // ms the target spent on it beyond the baseline
	share      map[string]float64 // diff over the target's whole difference
	orderShare float64            // the largest share over the targets: the order
	plan       map[string]string  // the target's EXPLAIN of it, where the cell took one
}

// opCompare is one table's row (a clients/load label) compared per
// operation against base.
type opCompare struct {
	title, label, base string
	others             []string
	lines              []*opLine
	whole              map[string]float64 // ms: the baseline's counts × each target's means (the baseline's over all it ran)
	baseWhole          map[string]float64 // ms: the baseline's whole over the statements the target ran
	mark               map[string]string  // noise mark of each target's whole ratio
}

// sameWhole is the relative difference under which two wholes are the
// same: no headline names statements for it, and no share divides by it
// (a difference near zero makes any share meaningless).
const sameWhole = 0.005

// noDifference is whether t's whole is within sameWhole of the
// baseline's over the same statements.
func (c *opCompare) noDifference(t string) bool {
	b := c.baseWhole[t]
	return math.Abs(c.whole[t]-b) < sameWhole*b
}

// both is whether l counts in t's whole: the baseline and t ran it.
func (c *opCompare) both(l *opLine, t string) bool {
	return l.count[c.base] > 0 && l.count[t] > 0
}

// statementGroup is whether g's workload registered the per-statement
// comparison.
func statementGroup(g *group) bool {
	return len(g.files) > 0 && sections.Is(g.files[0].Cell.Workload, sections.Statements)
}

// wholeOp is an operation's figures over the whole run when recorded
// (a replay's first and last slices are the capture's statements too),
// else the trimmed ones.
func wholeOp(o result.Op) (count int64, mean, p50, p99 float64) {
	s := o.Snapshot
	if o.Untrimmed.Count > 0 {
		s = o.Untrimmed
	}
	mean = s.MeanMs
	if s.Count > 0 && s.SumMs > 0 {
		mean = s.SumMs / float64(s.Count)
	}
	return s.Count, mean, s.P50Ms, s.P99Ms
}

// opFigures are op's figures on fs (one target and label): each the
// median over the repeats that succeeded and ran it, and the repeats'
// means, the sample its ratio is tested on.
func opFigures(fs []*result.File, op string) (count int64, mean, p50, p99 float64, means []float64) {
	var counts, p50s, p99s []float64
	for _, f := range fs {
		o, ok := f.Ops[op]
		if !f.OK() || !ok {
			continue
		}
		n, m, a, b := wholeOp(o)
		if n == 0 {
			continue
		}
		counts, means, p50s, p99s = append(counts, float64(n)), append(means, m), append(p50s, a), append(p99s, b)
	}
	if len(means) == 0 {
		return 0, 0, 0, 0, nil
	}
	return int64(math.Round(stats.Median(counts))), stats.Median(means), stats.Median(p50s), stats.Median(p99s), means
}

// planOf is op's plan in the first of fs that took one: the plan is
// taken once per cell, after its run, and repeats plan alike.
func planOf(fs []*result.File, op string) string {
	for _, f := range fs {
		if p := f.Invariants.Plans[op]; p != "" {
			return p
		}
	}
	return ""
}

// numbers are the estimates and costs in a plan, which differ between
// engines and runs where the plan's shape does not.
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// plansDiffer is whether l's plans differ between the targets that took
// one, their numbers aside: another access path, key or join order.
func (l *opLine) plansDiffer() bool {
	shape := ""
	for _, p := range l.plan {
		s := numbers.ReplaceAllString(p, "#")
		if shape != "" && s != shape {
			return true
		}
		shape = s
	}
	return false
}

// planNotes are the plans of the statements shown (rows of them): all
// of a statement whose plans differ between targets, flagged, and the
// first planNotesSame's when they are alike, so the statements that
// make most of a difference say why.
func (c *opCompare) planNotes(rows int) []string {
	var out []string
	same := 0
	for i, l := range c.lines[:min(rows, len(c.lines))] {
		if len(l.plan) == 0 {
			continue
		}
		differ := l.plansDiffer()
		if !differ && (same == planNotesSame || len(l.plan) < len(c.others)+1) {
			continue
		}
		var parts []string
		for _, t := range append([]string{c.base}, c.others...) {
			if p, ok := l.plan[t]; ok && (differ || len(parts) == 0) {
				who := t
				if !differ {
					who = "every target"
				}
				parts = append(parts, who+": "+oneLine(p))
			}
		}
		head := fmt.Sprintf("#%d plan, ", i+1)
		if differ {
			head = fmt.Sprintf("#%d PLANS DIFFER: ", i+1)
		} else {
			same++
		}
		out = append(out, head+clip(strings.Join(parts, "; "), 400))
	}
	return out
}

// planNotesSame is how many statements alike on every target get their
// plan shown.
const planNotesSame = 3

func oneLine(p string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(p, "\n", " | ")), " ")
}

// compareOps is g's row label compared per operation, most of the
// difference first; nil when the baseline ran no operation there.
func compareOps(g *group, base, label string) *opCompare {
	c := &opCompare{title: g.title, label: label, base: base, others: without(g.targets, base),
		whole: map[string]float64{}, baseWhole: map[string]float64{}, mark: map[string]string{}}
	for _, op := range opsOf(g.files) {
		l := &opLine{op: op, count: map[string]int64{}, mean: map[string]float64{}, p50: map[string]float64{},
			p99: map[string]float64{}, mark: map[string]string{}, diff: map[string]float64{}, share: map[string]float64{},
			plan: map[string]string{}}
		for _, t := range g.targets {
			if p := planOf(pick(g.files, t, label), op); p != "" {
				l.plan[t] = p
			}
		}
		var bm []float64
		l.count[base], l.mean[base], l.p50[base], l.p99[base], bm = opFigures(pick(g.files, base, label), op)
		for _, t := range c.others {
			var tm []float64
			l.count[t], l.mean[t], l.p50[t], l.p99[t], tm = opFigures(pick(g.files, t, label), op)
			if len(tm) > 0 && len(bm) > 0 {
				l.mark[t] = noiseMark(bm, tm)
			}
		}
		c.lines = append(c.lines, l)
	}
	if c.wholes(base) == 0 {
		return nil
	}
	c.markWholes(g)
	c.order()
	return c
}

// wholes sums each target's whole run, and the baseline's it is
// compared with, over the operations both it and the baseline ran; it
// returns the baseline's over all it ran.
func (c *opCompare) wholes(base string) float64 {
	all := 0.0
	for _, l := range c.lines {
		n := float64(l.count[base])
		all += n * l.mean[base]
		for _, t := range c.others {
			if c.both(l, t) {
				c.whole[t] += n * l.mean[t]
				c.baseWhole[t] += n * l.mean[base]
				l.diff[t] = n * (l.mean[t] - l.mean[base])
			}
		}
	}
	c.whole[base] = all
	return all
}

// order computes each operation's share of each target's difference
// and sorts by the largest: the operations that make most of a
// difference first.
func (c *opCompare) order() {
	for _, t := range c.others {
		if c.noDifference(t) {
			continue
		}
		d := c.whole[t] - c.baseWhole[t]
		for _, l := range c.lines {
			l.share[t] = l.diff[t] / d
		}
	}
	for _, l := range c.lines {
		l.orderShare = math.Inf(-1)
		for _, t := range c.others {
			l.orderShare = max(l.orderShare, l.share[t])
		}
	}
	sort.SliceStable(c.lines, func(i, j int) bool {
		if c.lines[i].orderShare != c.lines[j].orderShare {
			return c.lines[i].orderShare > c.lines[j].orderShare
		}
		return c.lines[i].count[c.base] > c.lines[j].count[c.base]
	})
}

// markWholes tests each target's whole ratio on the repeats: each
// repeat's sum of the baseline's counts × its own means, on both sides
// over the statements the target's whole has.
func (c *opCompare) markWholes(g *group) {
	for _, t := range c.others {
		counts := map[string]int64{}
		for _, l := range c.lines {
			if c.both(l, t) {
				counts[l.op] = l.count[c.base]
			}
		}
		c.mark[t] = noiseMark(c.wholeSample(g, c.base, counts), c.wholeSample(g, t, counts))
	}
}

// wholeSample is each of t's successful repeats' sum of counts × its
// means (a statement a repeat never completed has no mean).
func (c *opCompare) wholeSample(g *group, t string, counts map[string]int64) []float64 {
	var xs []float64
	for _, f := range pick(g.files, t, c.label) {
		if !f.OK() {
			continue
		}
		sum := 0.0
		for op, n := range counts {
			if o, ok := f.Ops[op]; ok {
				if k, m, _, _ := wholeOp(o); k > 0 {
					sum += float64(n) * m
				}
			}
		}
		xs = append(xs, sum)
	}
	return xs
}

// headline says how much longer the whole run took on t and which
// operations (their numbers in the table, 1 first) make most of it:
// the fewest that make 80% of the difference, at most 5.
func (c *opCompare) headline(t string) string {
	b, w := c.baseWhole[t], c.whole[t]
	if w == 0 || b == 0 {
		return fmt.Sprintf("on %s no statement the baseline ran was timed", t)
	}
	s := fmt.Sprintf("on %s the run took %.2f×%s %s's time%s", t, w/b, c.mark[t], c.base, c.missingText(t))
	d := w - b
	if c.noDifference(t) {
		return s + "; ~ no difference"
	}
	idx := make([]int, len(c.lines))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return c.lines[idx[i]].share[t] > c.lines[idx[j]].share[t] })
	var nums []string
	sum := 0.0
	for _, i := range idx {
		if sum >= 0.8 || len(nums) == 5 || c.lines[i].share[t] <= 0 {
			break
		}
		sum += c.lines[i].share[t]
		nums = append(nums, fmt.Sprintf("#%d", i+1))
	}
	what := "that"
	if d < 0 {
		what = "the time saved"
	}
	return fmt.Sprintf("%s; %.0f%% of %s is %s (%s)", s, 100*sum, what, statementsText(len(nums)), strings.Join(nums, ", "))
}

// missingText names the statements the baseline ran and t never
// completed (their numbers, at most 5): they are left out of both
// sides of t's comparison.
func (c *opCompare) missingText(t string) string {
	var nums []string
	for i, l := range c.lines {
		if l.count[c.base] > 0 && l.count[t] == 0 {
			nums = append(nums, fmt.Sprintf("#%d", i+1))
		}
	}
	switch {
	case len(nums) == 0:
		return ""
	case len(nums) > 5:
		nums = append(nums[:5], fmt.Sprintf("and %d more", len(nums)-5))
	}
	return fmt.Sprintf(" over the statements both ran (%s never completed on %s, left out of both)", strings.Join(nums, ", "), t)
}

func statementsText(n int) string {
	if n == 1 {
		return "this statement"
	}
	return fmt.Sprintf("these %d statements", n)
}

// opTableRows is how many operations the terminal shows; the HTML and
// CSV have them all.
const opTableRows = 15

// opRow is operation i's row of the table: its number, its text
// clipped to clip runes (0: whole), the baseline's count, then per
// target p50 and p99 and, after each other target's, its × and share of
// the difference (pairs: a table split to fit keeps them together).
func (c *opCompare) opRow(i, clipTo int) []string {
	l := c.lines[i]
	text := l.op
	if clipTo > 0 {
		text = clip(text, clipTo)
	}
	row := []string{fmt.Sprintf("#%d", i+1), text, fmt.Sprint(l.count[c.base])}
	for _, t := range append([]string{c.base}, c.others...) {
		if l.count[t] == 0 {
			row = append(row, "-", "-")
		} else {
			row = append(row, fmt.Sprintf("%.3f", l.p50[t]), fmt.Sprintf("%.3f", l.p99[t]))
		}
		if t != c.base {
			row = append(row, c.ratioText(l, t), c.shareText(l, t))
		}
	}
	return row
}

func (c *opCompare) ratioText(l *opLine, t string) string {
	if l.count[t] == 0 || l.count[c.base] == 0 || l.mean[c.base] <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%s", l.mean[t]/l.mean[c.base], l.mark[t])
}

func (c *opCompare) shareText(l *opLine, t string) string {
	if !c.both(l, t) || c.noDifference(t) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*l.share[t])
}

// opHead is the table's head, in opRow's order.
func (c *opCompare) opHead() []string {
	head := []string{"#", "statement", "n", c.base + " p50", "p99"}
	for _, t := range c.others {
		head = append(head, t+" p50", "p99", "×", "share")
	}
	return head
}

// countNotes name the statements a target ran another number of times
// than the baseline (a replay the duration cut short, errors).
func (c *opCompare) countNotes() []string {
	var out []string
	for i, l := range c.lines {
		for _, t := range c.others {
			if l.count[t] != l.count[c.base] {
				out = append(out, fmt.Sprintf("#%d: %s ran it %d times, %s %d", i+1, t, l.count[t], c.base, l.count[c.base]))
			}
		}
	}
	return out
}

// shareNotes explain the shares beyond ±100% of a target: statements
// faster there offset those slower, so the net difference is smaller
// than some statements' parts of it.
func (c *opCompare) shareNotes() []string {
	var out []string
	for _, t := range c.others {
		for _, l := range c.lines {
			if math.Abs(l.share[t]) > 1 {
				out = append(out, fmt.Sprintf("on %s shares beyond ±100%%: statements faster there offset those slower; the net difference is %.1f ms of %.1f ms",
					t, c.whole[t]-c.baseWhole[t], c.baseWhole[t]))
				break
			}
		}
	}
	return out
}

// writeOpTables is the per-statement comparison of every row of g.
func writeOpTables(w io.Writer, width int, g *group, base string) {
	for _, label := range g.labels {
		c := compareOps(g, base, label)
		if c == nil {
			continue
		}
		fmt.Fprintln(w)
		note(w, width, "", fmt.Sprintf("%s, %s: per statement, most of the difference first; × = times slower than %s (mean), share = of the difference in the whole run's time (%s's count of each statement × each target's mean)", c.title, label, base, base))
		for _, t := range c.others {
			note(w, width, "  ", c.headline(t))
		}
		head, rows := c.opHead(), c.fitRows(width)
		leftAlign(append([][]string{head}, rows...), 1)
		fitTable(w, width, tabwriter.AlignRight, head, rows, 3, 2)
		for i, r := range rows {
			if strings.TrimRight(r[1], " ") != c.lines[i].op {
				// clipped to fit: in full under the table
				note(w, width, "  ", fmt.Sprintf("#%d %s", i+1, clip(c.lines[i].op, 300)))
			}
		}
		if n := len(c.lines) - opTableRows; n > 0 {
			fmt.Fprintf(w, "  and %d more statements (the HTML report and CSV have them all)\n", n)
		}
		for _, n := range append(append(c.countNotes(), c.shareNotes()...), c.planNotes(len(rows))...) {
			note(w, width, "  ", n)
		}
		note(w, width, "  ", "n = "+base+"'s count, p50/p99 in ms; "+noiseLegend)
	}
}

// fitRows are the terminal's rows with the statements clipped as long
// as the table still fits width (at least 24 runes, a statement's
// start, else the table is split).
func (c *opCompare) fitRows(width int) [][]string {
	var rows [][]string
	for clipTo := 60; clipTo >= 24; clipTo -= 4 {
		rows = rows[:0]
		for i := range c.lines[:min(len(c.lines), opTableRows)] {
			rows = append(rows, c.opRow(i, clipTo))
		}
		if total(columnWidths(twoLineHeads(c.opHead(), rows), rows)) <= width {
			break
		}
	}
	return rows
}

// leftAlign pads column col to its widest, so a right-aligned table
// shows it left-aligned (text reads from its start).
func leftAlign(rows [][]string, col int) {
	w := 0
	for _, r := range rows {
		w = max(w, utf8.RuneCountInString(r[col]))
	}
	for _, r := range rows {
		r[col] += strings.Repeat(" ", w-utf8.RuneCountInString(r[col]))
	}
}

// opSection is the HTML report's per-statement comparison: a table per
// clients/load row with every statement, each target's columns under
// its name, the headlines in its caption.
func opSection(g *group, base string) section {
	sec := section{Title: "Per statement, most of the difference first",
		Note: fmt.Sprintf("× = times slower than %s (mean); share = of the difference in the whole run's time (%s's count of each statement × each target's mean); p50/p99 in ms, medians over the repeats; %s", base, base, noiseLegend)}
	for _, label := range g.labels {
		c := compareOps(g, base, label)
		if c == nil {
			continue
		}
		groups := []tgroup{{Span: 3}, {Text: base, Span: 2}}
		head := []string{"#", "statement", "n", "p50 ms", "p99 ms"}
		for _, t := range c.others {
			groups = append(groups, tgroup{Text: t, Span: 4})
			head = append(head, "p50 ms", "p99 ms", "×", "share")
		}
		var rows [][]tcell
		for i := range c.lines {
			var row []tcell
			for j, v := range c.opRow(i, 0) {
				cell := numCell(v)
				if j == 1 {
					cell = tcell{Text: clip(v, 120), Title: v + c.planTitle(i)}
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
		var lines []string
		for _, t := range c.others {
			lines = append(lines, c.headline(t))
		}
		lines = append(lines, c.countNotes()...)
		lines = append(lines, c.shareNotes()...)
		lines = append(lines, c.planNotes(len(c.lines))...)
		sec.Figures = append(sec.Figures, figure{Heading: "clients/load " + label, Caption: strings.Join(lines, ". "),
			Table: &table{Groups: groups, Head: head, Rows: rows}})
	}
	return sec
}

// planTitle is statement i's plans on each target, for its cell's
// title in the HTML table.
func (c *opCompare) planTitle(i int) string {
	l := c.lines[i]
	var b strings.Builder
	for _, t := range append([]string{c.base}, c.others...) {
		if p, ok := l.plan[t]; ok {
			fmt.Fprintf(&b, "\n\nEXPLAIN on %s:\n%s", t, p)
		}
	}
	return b.String()
}

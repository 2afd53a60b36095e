package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"shootout/internal/result"
	"shootout/internal/stats"
)

// This file is the per session type view (cells' invariants.session_types,
// a replay's kinds of session: the capture's user, database and
// program): per kind, the sessions and statements, each target's total,
// p50 and p99 of its statements, and × slower than the baseline, the
// kinds that took the baseline most time first. A capture of one kind
// of session gets no view in the terminal or HTML: its one line would
// repeat the per-statement table's headline (the same statements, the
// same times); the CSV has its rows still.

// typeLine is one kind of session: its figures and ratio's noise mark
// per target.
type typeLine struct {
	name string
	on   map[string]typeFig
	mark map[string]string
}

// typeFig is a kind of session's figures on one target, each the median
// over the repeats; means are the repeats' own, the sample its ratio is
// tested on.
type typeFig struct {
	sessions, count       int64
	total, mean, p50, p99 float64
	means                 []float64
}

// typeCompare is one clients/load label's kinds of session against base.
type typeCompare struct {
	label, base string
	others      []string
	lines       []*typeLine
}

// sessionTypesOf are the kinds of session g's cells recorded, in the
// order the first cell to record each listed it.
func sessionTypesOf(files []*result.File) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, st := range f.Invariants.SessionTypes {
			if !seen[st.Type] {
				seen[st.Type] = true
				out = append(out, st.Type)
			}
		}
	}
	return out
}

// typeFigures are kind's figures on fs (one target and label), over
// the repeats that succeeded and ran a statement of it.
func typeFigures(fs []*result.File, kind string) typeFig {
	var ss, ns, totals, p50s, p99s, means []float64
	for _, f := range fs {
		if !f.OK() {
			continue
		}
		for _, st := range f.Invariants.SessionTypes {
			if s := st.Statements; st.Type == kind && s.Count > 0 {
				ss, ns, totals = append(ss, float64(st.Sessions)), append(ns, float64(s.Count)), append(totals, s.SumMs)
				means, p50s, p99s = append(means, s.SumMs/float64(s.Count)), append(p50s, s.P50Ms), append(p99s, s.P99Ms)
			}
		}
	}
	if len(means) == 0 {
		return typeFig{}
	}
	med := func(xs []float64) int64 { return int64(math.Round(stats.Median(xs))) }
	return typeFig{sessions: med(ss), count: med(ns), total: stats.Median(totals), mean: stats.Median(means),
		p50: stats.Median(p50s), p99: stats.Median(p99s), means: means}
}

// compareTypes is g's row label compared per kind of session; nil when
// its cells recorded fewer than two kinds.
func compareTypes(g *group, base, label string) *typeCompare {
	kinds := sessionTypesOf(g.files)
	if len(kinds) < 2 {
		return nil
	}
	c := &typeCompare{label: label, base: base, others: without(g.targets, base)}
	for _, k := range kinds {
		l := &typeLine{name: k, on: map[string]typeFig{}, mark: map[string]string{}}
		for _, t := range g.targets {
			l.on[t] = typeFigures(pick(g.files, t, label), k)
		}
		for _, t := range c.others {
			if b, o := l.on[base].means, l.on[t].means; len(b) > 0 && len(o) > 0 {
				l.mark[t] = noiseMark(b, o)
			}
		}
		c.lines = append(c.lines, l)
	}
	sort.SliceStable(c.lines, func(i, j int) bool { return c.lines[i].on[base].total > c.lines[j].on[base].total })
	return c
}

// typeRow is kind i's row: its number, its name, the baseline's
// sessions and statements, then per target total, p50 and p99 and,
// after each other target's, its ×.
func (c *typeCompare) typeRow(i int) []string {
	l := c.lines[i]
	b := l.on[c.base]
	row := []string{fmt.Sprintf("#%d", i+1), l.name, fmt.Sprint(b.sessions), fmt.Sprint(b.count)}
	for _, t := range append([]string{c.base}, c.others...) {
		if o := l.on[t]; o.count == 0 {
			row = append(row, "-", "-", "-")
		} else {
			row = append(row, fmt.Sprintf("%.1f", o.total), fmt.Sprintf("%.3f", o.p50), fmt.Sprintf("%.3f", o.p99))
		}
		if t != c.base {
			row = append(row, c.ratioText(l, t))
		}
	}
	return row
}

func (c *typeCompare) ratioText(l *typeLine, t string) string {
	b, o := l.on[c.base], l.on[t]
	if o.count == 0 || b.count == 0 || b.mean <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%s", o.mean/b.mean, l.mark[t])
}

func (c *typeCompare) typeHead() []string {
	head := []string{"#", "session type", "sessions", "n", c.base + " total ms", "p50", "p99"}
	for _, t := range c.others {
		head = append(head, t+" total ms", "p50", "p99", "×")
	}
	return head
}

// countNotes name the kinds a target ran other sessions or statements
// of than the baseline (a replay the window cut short, sessions given
// up).
func (c *typeCompare) countNotes() []string {
	var out []string
	for i, l := range c.lines {
		for _, t := range c.others {
			if b, o := l.on[c.base], l.on[t]; o.count != b.count || o.sessions != b.sessions {
				out = append(out, fmt.Sprintf("#%d: %s ran %d sessions, %d statements; %s %d, %d", i+1, t,
					o.sessions, o.count, c.base, b.sessions, b.count))
			}
		}
	}
	return out
}

const typeLegend = "sessions and n = the baseline's sessions and their statements; total = the statements' time, p50/p99 in ms, medians over the repeats; × = times slower than %s (the statements' mean)"

// writeTypeTables is the per session type view of every row of g.
func writeTypeTables(w io.Writer, width int, g *group, base string) {
	for _, label := range g.labels {
		c := compareTypes(g, base, label)
		if c == nil {
			return
		}
		fmt.Fprintln(w)
		note(w, width, "", fmt.Sprintf("%s, %s: per session type (the capture's user@database program), most of %s's time first", g.title, label, base))
		head := c.typeHead()
		var rows [][]string
		for i := range c.lines {
			rows = append(rows, c.typeRow(i))
		}
		leftAlign(append([][]string{head}, rows...), 1)
		fitTable(w, width, tabwriter.AlignRight, head, rows, 4, 4)
		for _, n := range c.countNotes() {
			note(w, width, "  ", n)
		}
		note(w, width, "  ", fmt.Sprintf(typeLegend, base)+"; "+noiseLegend)
	}
}

// typeSection is the HTML report's per session type view, nil for a
// capture of one kind of session.
func typeSection(g *group, base string) *section {
	sec := section{Title: "Per session type", Note: fmt.Sprintf(typeLegend, base) + "; " + noiseLegend}
	for _, label := range g.labels {
		c := compareTypes(g, base, label)
		if c == nil {
			return nil
		}
		groups := []tgroup{{Span: 4}, {Text: base, Span: 3}}
		head := []string{"#", "session type", "sessions", "n", "total ms", "p50 ms", "p99 ms"}
		for _, t := range c.others {
			groups = append(groups, tgroup{Text: t, Span: 4})
			head = append(head, "total ms", "p50 ms", "p99 ms", "×")
		}
		var rows [][]tcell
		for i := range c.lines {
			var row []tcell
			for j, v := range c.typeRow(i) {
				if j == 1 {
					row = append(row, txt(v))
				} else {
					row = append(row, numCell(v))
				}
			}
			rows = append(rows, row)
		}
		sec.Figures = append(sec.Figures, figure{Heading: "clients/load " + label, Caption: strings.Join(c.countNotes(), ". "),
			Table: &table{Groups: groups, Head: head, Rows: rows}})
	}
	return &sec
}

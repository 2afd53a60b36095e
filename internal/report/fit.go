package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"golang.org/x/term"
)

// defaultWidth is the width when neither COLUMNS nor a terminal says.
const defaultWidth = 100

// Width is what the terminal tables fit: COLUMNS, else standard
// output's terminal, else 100 — the rule of cmd's screens.
func Width() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
		return n
	}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w >= 40 {
		return w
	}
	return defaultWidth
}

// tableGap is the space tabwriter pads every cell with.
const tableGap = 2

// fitTable writes head and rows as a tabwriter table (flags: its
// alignment) within width. A table that does not fit is split into
// several, one after another: each repeats the first keep columns (what
// names a row) and takes as many of the others as fit, in units of unit
// columns that stay together (a time and its ratio). Nothing is dropped;
// a unit wider than width alone still gets a table of its own.
func fitTable(w io.Writer, width int, flags uint, head []string, rows [][]string, keep, unit int) {
	heads := [][]string{head}
	widths := columnWidths(heads, rows)
	if total(widths) > width {
		// headers on two lines first: they are what makes most columns wide
		heads = twoLineHeads(head, rows)
		widths = columnWidths(heads, rows)
	}
	// a left-aligned table's last column is written unpadded (text after
	// the last tab is no cell), so its gap is not on the line: trailing
	// spaces would wrap a terminal exactly as wide as the table
	leftAligned := flags&tabwriter.AlignRight == 0
	slack := 0
	if leftAligned {
		slack = tableGap
	}
	parts := splitColumns(widths, width+slack, keep, unit)
	for i, cols := range parts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		var out bytes.Buffer
		tw := tabwriter.NewWriter(&out, 0, 0, tableGap, ' ', flags)
		for _, r := range append(partHeads(heads, cols), rows...) {
			var b strings.Builder
			for j, c := range cols {
				if c < len(r) {
					b.WriteString(r[c])
				}
				if j < len(cols)-1 || !leftAligned {
					b.WriteByte('\t')
				}
			}
			fmt.Fprintln(tw, b.String())
		}
		tw.Flush()
		for _, line := range strings.SplitAfter(out.String(), "\n") {
			io.WriteString(w, strings.TrimRight(strings.TrimSuffix(line, "\n"), " ")+strings.Repeat("\n", strings.Count(line, "\n")))
		}
	}
}

// partHeads leaves out a header line that is empty over a part's
// columns (the top line of two-line headers where none of them broke),
// which would print as a line of spaces only.
func partHeads(heads [][]string, cols []int) [][]string {
	var out [][]string
	for _, h := range heads {
		for _, c := range cols {
			if c < len(h) && h[c] != "" {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

func columnWidths(heads [][]string, rows [][]string) []int {
	widths := make([]int, len(heads[0]))
	for _, r := range append(heads, rows...) {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(c)+tableGap)
			}
		}
	}
	return widths
}

// splitColumns is the columns of each table fitTable writes.
func splitColumns(widths []int, width, keep, unit int) [][]int {
	keep, unit = min(keep, len(widths)), max(unit, 1)
	fixed := 0
	var kept []int
	for i := range keep {
		fixed += widths[i]
		kept = append(kept, i)
	}
	var parts [][]int
	cur, used := append([]int(nil), kept...), fixed
	for u := keep; u < len(widths); u += unit {
		end := min(u+unit, len(widths))
		uw := 0
		for c := u; c < end; c++ {
			uw += widths[c]
		}
		if used+uw > width && len(cur) > len(kept) {
			parts = append(parts, cur)
			cur, used = append([]int(nil), kept...), fixed
		}
		for c := u; c < end; c++ {
			cur = append(cur, c)
		}
		used += uw
	}
	return append(parts, cur)
}

// note writes text as lines within width, each starting with indent
// (continuations two spaces further in).
func note(w io.Writer, width int, indent, text string) {
	fmt.Fprintln(w, Wrap(text, indent, width))
}

func total(widths []int) int {
	n := 0
	for _, w := range widths {
		n += w
	}
	return n
}

// twoLineHeads breaks each header wider than its column's figures at the
// space that leaves the shorter longest line: two header rows.
func twoLineHeads(head []string, rows [][]string) [][]string {
	top, bottom := make([]string, len(head)), append([]string(nil), head...)
	for i, h := range head {
		data := 0
		for _, r := range rows {
			if i < len(r) {
				data = max(data, utf8.RuneCountInString(r[i]))
			}
		}
		best := utf8.RuneCountInString(h)
		if best <= data {
			continue
		}
		for j, c := range h {
			if c != ' ' {
				continue
			}
			if l := max(utf8.RuneCountInString(h[:j]), utf8.RuneCountInString(h[j+1:])); l < best {
				best, top[i], bottom[i] = l, h[:j], h[j+1:]
			}
		}
	}
	for _, t := range top {
		if t != "" {
			return [][]string{top, bottom}
		}
	}
	return [][]string{head}
}

// namingColumns is how many columns at the left of rows name the row
// rather than measure it: those none of whose cells is a number (a
// clients/load label such as 8/x1 names), at least one.
func namingColumns(rows [][]string) int {
	n := 0
	for ; ; n++ {
		for _, r := range rows {
			if n >= len(r) {
				return max(n, 1)
			}
			if _, err := strconv.ParseFloat(strings.TrimRight(r[n], "?~!*"), 64); err == nil {
				return max(n, 1)
			}
		}
		if len(rows) == 0 {
			return 1
		}
	}
}

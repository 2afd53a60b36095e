package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
	"golang.org/x/term"
)

// defaultWidth is the width a screen is laid out for when neither COLUMNS
// nor a terminal says: the narrowest terminal the issue asked us to read on
// comfortably.
const defaultWidth = 100

// termWidth is the width screens wrap to: COLUMNS (what a shell exports,
// and what tests and pipes can set), else the terminal's, else 100.
func termWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
		return n
	}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w >= 40 {
		return w
	}
	return defaultWidth
}

// screenTable lays out rows under a header to width: every column as wide
// as its widest cell except wrapCol (0-based), which wraps at word bounds
// into what the others leave.
type screenTable struct {
	header  []string
	rows    [][]string
	wrapCol int
}

func (s *screenTable) add(cells ...string) { s.rows = append(s.rows, cells) }

// gap is the space between two columns.
const gap = 2

func (s *screenTable) render(w io.Writer, width int) {
	t := table.NewWriter()
	style := table.StyleDefault
	style.Options = table.OptionsNoBordersAndSeparators
	style.Box.PaddingLeft, style.Box.PaddingRight = "", strings.Repeat(" ", gap)
	style.Format.Header = text.FormatDefault
	t.SetStyle(style)
	t.AppendHeader(row(s.header))
	for _, r := range s.rows {
		t.AppendRow(row(r))
	}
	t.SetColumnConfigs([]table.ColumnConfig{{Number: s.wrapCol + 1,
		WidthMax: s.wrapWidth(width), WidthMaxEnforcer: text.WrapSoft}})
	// the library pads the last column too: a line ends at its text
	for _, line := range strings.Split(t.Render(), "\n") {
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// wrapWidth is what the other columns and the gaps leave the wrapped one,
// never under 20 columns (a narrower screen gets long lines instead of a
// column of single words).
func (s *screenTable) wrapWidth(width int) int {
	used := 0
	for c := range s.header {
		if c == s.wrapCol {
			continue
		}
		widest := text.StringWidth(s.header[c])
		for _, r := range s.rows {
			if c < len(r) {
				widest = max(widest, text.StringWidth(r[c]))
			}
		}
		used += widest + gap
	}
	return max(width-used, 20)
}

func row(cells []string) table.Row {
	r := make(table.Row, len(cells))
	for i, c := range cells {
		r[i] = c
	}
	return r
}

// wrapText wraps prose (a footnote, a skipped target's reason) to width,
// keeping its leading spaces; continuation lines are indented by indent
// more.
func wrapText(s string, width, indent int) string {
	body := strings.TrimLeft(s, " ")
	lead := strings.Repeat(" ", len(s)-len(body))
	lines := strings.Split(text.WrapSoft(body, max(width-len(lead)-indent, 20)), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return lead + strings.Join(lines, "\n"+lead+strings.Repeat(" ", indent))
}

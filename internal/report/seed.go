package report

import (
	"fmt"
	"io"
	"strings"

	"shootout/internal/result"
)

// SeedHeader prints, above a study's tables, the seed it reproduces and
// every way this run differs from the seed's own set-up, so a figure set
// beside the seed's is read with its differences.
func SeedHeader(w io.Writer, m *result.Manifest) {
	if m == nil || m.Seed == nil {
		return
	}
	s := m.Seed
	fmt.Fprintln(w, Wrap(fmt.Sprintf("study %s reproduces seed %s: %s", s.Study, s.Seed, s.Machine), "", 99))
	fmt.Fprintln(w, Wrap("seed's servers: "+s.Servers, "  ", 99))
	if len(s.Differs) == 0 {
		fmt.Fprintln(w, "  differs from the seed: nothing known")
	}
	for _, d := range s.Differs {
		fmt.Fprintln(w, Wrap("differs from the seed: "+d, "  ", 99))
	}
	fmt.Fprintln(w)
}

// Wrap breaks text into lines of at most width columns (a longer word
// stays whole), the first indented by indent, the rest two more.
func Wrap(text, indent string, width int) string {
	var b strings.Builder
	line, empty := indent, true
	for _, word := range strings.Fields(text) {
		switch {
		case !empty && len([]rune(line))+1+len([]rune(word)) > width:
			b.WriteString(line + "\n")
			line = indent + "  " + word
		case empty:
			line += word
		default:
			line += " " + word
		}
		empty = false
	}
	b.WriteString(line)
	return b.String()
}

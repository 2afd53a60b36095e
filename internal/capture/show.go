package capture

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// showTop is how many session groups and fingerprints --show lists.
const showTop = 20

// Show prints a capture's header and what it holds: sessions grouped by
// user, database and program, the commands by kind, and the statements'
// fingerprints by total time, in at most width columns.
func Show(w io.Writer, path string, width int) error {
	h, lines, err := Read(path)
	if err != nil {
		return err
	}
	if width < 60 {
		width = 60
	}
	s := summarise(h, lines)
	showHeader(w, path, h, s, width)
	showSessions(w, s, width)
	showFingerprints(w, s, width)
	return nil
}

type group struct {
	key      string
	sessions int
	commands int
	errors   int
	ns       int64
	times    []int64
}

type summary struct {
	start, last int64
	end         *End
	kinds       map[string]int
	commands    int
	errors      int
	unanswered  int
	open        map[int64]string // session → its group
	closed      int
	groups      map[string]*group
	prints      map[string]*group
}

// statementKinds are the kinds whose time is a statement's: prepares and
// closes are counted by kind, not mixed into a statement's times.
var statementKinds = map[string]bool{KindQuery: true, KindExecute: true, KindBegin: true, KindCommit: true,
	KindRollback: true, KindSet: true, KindInitDB: true}

func summarise(h Header, lines []Line) *summary {
	s := &summary{start: h.StartNs, last: h.StartNs, kinds: map[string]int{}, open: map[int64]string{},
		groups: map[string]*group{}, prints: map[string]*group{}}
	at := func(ns int64) { s.last = max(s.last, ns) }
	for _, l := range lines {
		switch l.Type {
		case "open":
			o := l.Open
			key := SessionType(o)
			s.open[o.Session] = key
			groupOf(s.groups, key).sessions++
			at(o.AtNs)
		case "command":
			s.command(h.Protocol, l.Command)
			at(l.Command.EndNs)
		case "close":
			s.closed++
			at(l.Close.AtNs)
		case "end":
			s.end = l.End
			at(l.End.AtNs)
		}
	}
	return s
}

func (s *summary) command(protocol string, c *Command) {
	s.commands++
	s.kinds[c.Kind]++
	if c.Error != nil {
		s.errors++
	}
	if c.Unanswered {
		s.unanswered++
		return
	}
	ns := max(c.EndNs-c.StartNs, 0) // 0 when the source gives no end (a general log)
	g := groupOf(s.groups, s.open[c.Session])
	g.commands++
	g.ns += ns
	if !statementKinds[c.Kind] {
		return
	}
	p := groupOf(s.prints, Fingerprint(protocol, c.Text))
	p.commands++
	p.ns += ns
	p.times = append(p.times, ns)
	if c.Error != nil {
		p.errors++
		g.errors++
	}
}

func groupOf(m map[string]*group, key string) *group {
	g := m[key]
	if g == nil {
		g = &group{key: key}
		m[key] = g
	}
	return g
}

// SessionType is the kind of session o is: its user, database and
// client program, as --show groups sessions and a replay's report
// compares them ("redmine@redmine_default ruby"; "-" for no program).
func SessionType(o *Open) string {
	return fmt.Sprintf("%s@%s %s", o.User, o.Database, program(o.Attrs))
}

// program names the client program from its connection attributes, as
// the drivers send it.
func program(attrs map[string]string) string {
	for _, k := range []string{"program_name", "_program_name", "application_name", "_client_name"} {
		if v := attrs[k]; v != "" {
			return v
		}
	}
	return "-"
}

func showHeader(w io.Writer, path string, h Header, s *summary, width int) {
	fmt.Fprintln(w, path)
	fmt.Fprintf(w, "  %s version %d, %s, from a %s\n", h.Format, h.Version, h.Protocol, h.Source)
	fmt.Fprintf(w, "  server %s version %s\n", h.Server, cmp.Or(h.ServerVersion, "unknown (no session got that far)"))
	fmt.Fprintf(w, "  started %s, lasted %s\n", time.Unix(0, h.StartNs).UTC().Format("2006-01-02 15:04:05 UTC"),
		time.Duration(s.last-s.start).Round(time.Millisecond))
	if s.end != nil {
		cut := "cut by the stop"
		if h.Source != "proxy" {
			cut = "still open at its end"
		}
		fmt.Fprintf(w, "  ended: %s (%d sessions %s)\n", s.end.Reason, s.end.Cut, cut)
	} else {
		fmt.Fprintf(w, "  CUT SHORT: no end line (the proxy was killed); %d sessions have no close line\n", len(s.open)-s.closed)
	}
	fmt.Fprintln(w, "  not in this capture:")
	for _, m := range h.Missing {
		fmt.Fprint(w, wrap("- "+m, "    ", "      ", width))
	}
	var kinds []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.kinds {
			if !yield(k) {
				return
			}
		}
	}) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, s.kinds[k]))
	}
	fmt.Fprintf(w, "%d sessions, %d commands (%d errors, %d unanswered)\n", len(s.open), s.commands, s.errors, s.unanswered)
	if len(kinds) > 0 {
		fmt.Fprintln(w, "  "+clip(strings.Join(kinds, ", "), width-2))
	}
}

func showSessions(w io.Writer, s *summary, width int) {
	gs := sortedGroups(s.groups)
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%8s %8s %7s %11s  %s\n", "SESSIONS", "COMMANDS", "ERRORS", "TIME", "USER@DATABASE PROGRAM")
	for i, g := range gs {
		if i == showTop {
			fmt.Fprintf(w, "  ... %d more\n", len(gs)-i)
			break
		}
		fmt.Fprintf(w, "%8d %8d %7d %11s  %s\n", g.sessions, g.commands, g.errors, ms(g.ns), clip(g.key, width-39))
	}
}

func showFingerprints(w io.Writer, s *summary, width int) {
	gs := sortedGroups(s.prints)
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%8s %11s %9s %7s  %s\n", "COUNT", "TOTAL", "P50", "ERRORS", "FINGERPRINT")
	for i, g := range gs {
		if i == showTop {
			fmt.Fprintf(w, "  ... %d more\n", len(gs)-i)
			break
		}
		slices.Sort(g.times)
		p50 := g.times[(len(g.times)-1)/2]
		fmt.Fprintf(w, "%8d %11s %9s %7d  %s\n", g.commands, ms(g.ns), ms(p50), g.errors, clip(g.key, width-40))
	}
}

// sortedGroups puts the most time first, then the most commands.
func sortedGroups(m map[string]*group) []*group {
	var gs []*group
	for _, g := range m {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.ns, a.ns), cmp.Compare(b.commands, a.commands), strings.Compare(a.key, b.key))
	})
	return gs
}

func ms(ns int64) string {
	if ns >= 10e9 {
		return fmt.Sprintf("%.1f s", float64(ns)/1e9)
	}
	return fmt.Sprintf("%.3f ms", float64(ns)/1e6)
}

// clip cuts text to n columns, saying so with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// wrap breaks text at spaces into lines of at most width columns.
func wrap(text, first, rest string, width int) string {
	var b strings.Builder
	line := first
	for _, word := range strings.Fields(text) {
		if line != first && line != rest && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			b.WriteString(line + "\n")
			line = rest
		}
		if line != first && line != rest {
			line += " "
		}
		line += word
	}
	return b.String() + line + "\n"
}

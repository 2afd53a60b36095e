package capture

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// LogFormats are the logs --from-log reads, as --format names them.
const LogFormats = "slow, general, csvlog"

// Timing says how exact a capture's times are (the header's timing):
// the proxy's and csvlog's are absent (to the nanosecond or millisecond),
// the MariaDB logs' are to the second.
const TimingSecond = "second"

// LogOptions convert a server's log into a capture.
type LogOptions struct {
	From, Format, Out string
	Dump              string // a dump of the data the log started from, recorded as given
	Log               io.Writer
}

// FromLog reads a whole log and only then writes the capture, so a log
// that is not one of its format, or ends in a truncated line, leaves
// nothing behind (ErrBadInput, naming the file and line).
func FromLog(o LogOptions) error {
	parse := map[string]func(*logReader, *builder) error{"slow": parseSlow, "general": parseGeneral, "csvlog": parseCSV}[o.Format]
	if parse == nil {
		return badInput("--format %q; valid: %s", o.Format, LogFormats)
	}
	dump, err := namedDump(o.Dump)
	if err != nil {
		return err
	}
	f, err := os.Open(o.From)
	if err != nil {
		return badInput("--from-log: %w", err)
	}
	defer f.Close()
	b := newBuilder(map[string]string{"slow": "slow log", "general": "general log", "csvlog": "csvlog"}[o.Format])
	b.h.Dump = dump
	lr := &logReader{path: o.From, r: bufio.NewReaderSize(f, 1<<20)}
	if err := parse(lr, b); err != nil {
		return err
	}
	if b.commands == 0 {
		return badInput("%s: no statement in it; is it a %s log (--format)?", o.From, o.Format)
	}
	w, err := newWriter(o.Out)
	if err != nil {
		return err
	}
	for _, l := range b.finish() {
		w.line(l)
	}
	if err := w.close(); err != nil {
		return fmt.Errorf("%s: %w", o.Out, err)
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "capture: %d sessions, %d commands from %s in %s\n", b.next, b.commands, o.From, o.Out)
	}
	return nil
}

// logReader reads a log line by line, knowing the line's number for
// errors; a last line without its newline is a truncated log.
type logReader struct {
	path string
	r    *bufio.Reader
	n    int
}

func (l *logReader) line() (string, bool, error) {
	s, err := l.r.ReadString('\n')
	if err == io.EOF && s == "" {
		return "", false, nil
	}
	l.n++
	if err == io.EOF {
		return "", false, l.errorf("truncated line (no newline at its end)")
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", l.path, err)
	}
	return strings.TrimRight(s, "\r\n"), true, nil
}

func (l *logReader) errorf(format string, a ...any) error {
	return badInput("%s:%d: %s", l.path, l.n, fmt.Sprintf(format, a...))
}

// builder collects a log's sessions and commands in the log's order.
type builder struct {
	h        Header
	lines    []any
	live     map[string]*logSession // by the log's thread or session id
	next     int64
	commands int64
	last     int64
	// zoneNoted: the header says once that the log's zone was unknown
	zoneNoted bool
}

type logSession struct {
	id, seq int64
	db      string
}

func newBuilder(source string) *builder {
	return &builder{live: map[string]*logSession{},
		h: Header{Type: "header", Format: Format, Version: Version, Source: source}}
}

func (b *builder) at(ns int64) {
	if b.h.StartNs == 0 || ns < b.h.StartNs {
		b.h.StartNs = ns
	}
	b.last = max(b.last, ns)
}

// session finds the log's session by its id, opening it on first sight.
func (b *builder) session(key string, o Open) (*logSession, bool) {
	if s := b.live[key]; s != nil {
		return s, false
	}
	b.next++
	s := &logSession{id: b.next, db: o.Database}
	b.live[key] = s
	o.Type, o.Session = "open", s.id
	b.lines = append(b.lines, o)
	b.at(o.AtNs)
	return s, true
}

// command adds c to s and returns its place among the lines, for a log
// that writes a statement's duration after it (csvlog with log_statement).
func (b *builder) command(s *logSession, c Command) int {
	s.seq++
	c.Type, c.Session, c.Seq = "command", s.id, s.seq
	c.Text = redact(c.Text)
	b.lines = append(b.lines, c)
	b.commands++
	b.at(c.StartNs)
	return len(b.lines) - 1
}

func (b *builder) close(key string, at int64, reason string) {
	s := b.live[key]
	if s == nil {
		return
	}
	delete(b.live, key)
	b.lines = append(b.lines, Close{Type: "close", Session: s.id, AtNs: max(at, b.last), Reason: reason})
}

// closeAll ends every open session: at a server's restart (its thread
// ids start again) and at the log's end.
func (b *builder) closeAll(reason string) int64 {
	keys := slices.SortedFunc(maps.Keys(b.live), func(x, y string) int { return cmp.Compare(b.live[x].id, b.live[y].id) })
	for _, k := range keys {
		b.close(k, b.last, reason)
	}
	return int64(len(keys))
}

func (b *builder) finish() []any {
	cut := b.closeAll("the log ended")
	end := End{Type: "end", AtNs: b.last, Reason: "the log ended", Sessions: b.next, Commands: b.commands, Cut: cut}
	return append(append([]any{b.h}, b.lines...), end)
}

// secrets are the passwords a statement can carry (CREATE USER ...
// IDENTIFIED BY, SET PASSWORD, CREATE ROLE ... PASSWORD): a server logs
// them as sent, a capture never holds them.
var secrets = regexp.MustCompile(`(?i)(\b(?:IDENTIFIED\s+(?:VIA\s+\w+\s+)?(?:BY|USING|AS)|PASSWORD)\s*(?:=\s*)?(?:PASSWORD\s*)?\(?\s*)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")`)

func redact(text string) string {
	return secrets.ReplaceAllString(text, "$1'<redacted>'")
}

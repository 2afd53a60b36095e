package capture

import (
	"cmp"
	"encoding/csv"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The csvlog's columns shootout reads (PostgreSQL 13 and later write 23
// or more).
const (
	csvTime, csvUser, csvDB, csvClient, csvSession = 0, 1, 2, 4, 5
	csvTag, csvSeverity, csvState, csvMessage      = 7, 11, 12, 13
	csvDetail, csvQuery, csvApp, csvColumns        = 14, 19, 22, 23
	csvBackend                                     = 23
)

var (
	csvDuration = regexp.MustCompile(`(?s)^duration: ([\d.]+) ms  (statement|parse|bind|execute)( [^:]*)?: (.*)$`)
	csvParam    = regexp.MustCompile(`\$\d+ = ('(?:[^']|'')*'|NULL)`)
	csvStarting = regexp.MustCompile(`^starting PostgreSQL (\S+(?: \([^)]*\))?)`)
	csvAuthed   = regexp.MustCompile(`^connection authorized: user=\S+(?: database=\S+)?`)
	csvBare     = regexp.MustCompile(`^duration: ([\d.]+) ms$`)
	// what log_statement=all writes as a statement arrives (pgreplay's
	// input): its duration follows alone
	csvLogged = regexp.MustCompile(`(?s)^(statement|execute)( [^:]*)?: (.*)$`)
)

// csvPending are the statements log_statement wrote, by session, whose
// duration line has not come yet: their places among the lines.
type csvPending map[string]int

// lastByte remembers the last byte read, to tell a log cut mid-line.
type lastByte struct {
	r    io.Reader
	last byte
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

// parseCSV reads PostgreSQL's csvlog written with
// log_min_duration_statement=0: each statement with its duration, an
// execute with its parameters, a failed statement with its error.
func parseCSV(lr *logReader, b *builder) error {
	b.h.Protocol = ProtoPostgres
	b.h.Missing = []string{
		"rows returned, rows affected and the rows' checksums",
		"parameters' types and spelling: the log writes every parameter as the server prints its type (a timestamp without its fraction's trailing zeros), not as the client sent it; each is recorded as that string",
		"times to the millisecond: log_time is when a statement ended; its start is that less its duration",
		"failed statements' durations (start_ns = end_ns = when the error was logged) and their parameters",
		"statements sent but never run (skipped after an error before the same Sync), and closes of prepared statements",
		"when sessions connected and quit, unless log_connections and log_disconnections were on",
		"COPY's data, FunctionCall messages",
		"passwords in statements (PASSWORD '...'): replaced by '<redacted>'",
	}
	lb := &lastByte{r: lr.r}
	r := csv.NewReader(lb)
	r.FieldsPerRecord = -1
	binds := map[string]int64{}
	pending := csvPending{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		lr.n = line
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			lr.n = pe.Line
			return lr.errorf("not a csvlog: %v", pe.Err)
		}
		if err != nil {
			return err
		}
		if err := csvRecord(lr, b, rec, binds, pending); err != nil {
			return err
		}
	}
	if lb.last != '\n' && lr.n > 0 {
		return lr.errorf("truncated line (no newline at its end)")
	}
	return nil
}

func csvRecord(lr *logReader, b *builder, rec []string, binds map[string]int64, pending csvPending) error {
	if len(rec) < csvColumns {
		return lr.errorf("not a PostgreSQL csvlog (%d columns, want %d or more)", len(rec), csvColumns)
	}
	t, err := time.Parse("2006-01-02 15:04:05.000 MST", rec[csvTime])
	if err != nil {
		return lr.errorf("not a PostgreSQL csvlog (log_time %q)", rec[csvTime])
	}
	at := t.UnixNano()
	if zone, off := t.Zone(); off == 0 && zone != "UTC" && zone != "GMT" && !b.zoneNoted {
		b.zoneNoted = true
		b.h.Missing = append(b.h.Missing, "the log's time zone "+zone+": its times are read as UTC (set log_timezone=UTC for exact ones)")
	}
	msg := rec[csvMessage]
	if m := csvStarting.FindStringSubmatch(msg); m != nil {
		b.h.ServerVersion = m[1]
	}
	if rec[csvSession] == "" || (len(rec) > csvBackend && rec[csvBackend] != "client backend") {
		return nil
	}
	open := func() *logSession {
		o := Open{AtNs: at, User: rec[csvUser], Database: rec[csvDB], Client: rec[csvClient]}
		if rec[csvApp] != "" {
			o.Attrs = map[string]string{"application_name": rec[csvApp]}
		}
		s, _ := b.session(rec[csvSession], o)
		return s
	}
	key := rec[csvSession]
	switch sev := rec[csvSeverity]; {
	case sev == "ERROR" && rec[csvQuery] != "":
		if pending.failed(b, key, rec[csvQuery], at, &Error{Code: rec[csvState], Message: msg}) {
			return nil
		}
		kind := map[string]string{"PARSE": KindPrepare, "BIND": KindExecute}[rec[csvTag]]
		b.command(open(), Command{Kind: cmp.Or(kind, TextKind(rec[csvQuery])), Text: rec[csvQuery], StartNs: at, EndNs: at,
			Error: &Error{Code: rec[csvState], Message: msg}})
	case sev != "LOG":
	case csvBare.MatchString(msg):
		if !pending.ended(b, key, at) {
			return lr.errorf("a duration without its statement (log_duration was on): write the log with log_min_duration_statement=0, and log_statement=all if you like")
		}
	case csvAuthed.MatchString(msg):
		open()
	case strings.HasPrefix(msg, "disconnection: "):
		delete(pending, key)
		b.close(key, at, "client quit")
	case csvLogged.MatchString(msg):
		pending.logged(b, open, rec, at, binds)
	default:
		csvStatement(b, open, rec, at, binds)
	}
	return nil
}

// logged records a statement log_statement wrote as it arrived: it
// starts now, and ends at its duration line, if one comes.
func (p csvPending) logged(b *builder, open func() *logSession, rec []string, at int64, binds map[string]int64) {
	m := csvLogged.FindStringSubmatch(rec[csvMessage])
	key := rec[csvSession]
	c := Command{Text: m[3], StartNs: at, Kind: TextKind(m[3])}
	if m[1] == "execute" {
		name, _, _ := strings.Cut(strings.TrimSpace(m[2]), "/")
		if name == "<unnamed>" {
			name = ""
		}
		c.Kind, c.Stmt, c.Params = KindExecute, name, csvParams(rec[csvDetail])
		if s, ok := binds[key]; ok {
			c.StartNs = s
			delete(binds, key)
		}
	}
	p[key] = b.command(open(), c)
}

// ended gives the session's pending statement its end; false when it
// has none.
func (p csvPending) ended(b *builder, key string, at int64) bool {
	i, ok := p[key]
	if !ok {
		return false
	}
	delete(p, key)
	c := b.lines[i].(Command)
	c.EndNs = max(at, c.StartNs)
	b.lines[i] = c
	return true
}

// failed gives the session's pending statement its error, when the
// error is that statement's.
func (p csvPending) failed(b *builder, key, query string, at int64, e *Error) bool {
	i, ok := p[key]
	if !ok || b.lines[i].(Command).Text != redact(query) {
		return false
	}
	delete(p, key)
	c := b.lines[i].(Command)
	c.EndNs, c.Error = max(at, c.StartNs), e
	b.lines[i] = c
	return true
}

// csvStatement records a duration line: a Bind is part of its Execute,
// whose start it gives.
func csvStatement(b *builder, open func() *logSession, rec []string, at int64, binds map[string]int64) {
	m := csvDuration.FindStringSubmatch(rec[csvMessage])
	if m == nil {
		return
	}
	ms, _ := strconv.ParseFloat(m[1], 64)
	start := at - int64(ms*1e6)
	key := rec[csvSession]
	name := strings.TrimSpace(m[3])
	if name == "<unnamed>" {
		name = ""
	}
	name, _, _ = strings.Cut(name, "/") // execute S_1/C_1: the statement, then the portal
	c := Command{Text: m[4], StartNs: start, EndNs: at, Stmt: name}
	switch m[2] {
	case "bind":
		binds[key] = start
		return
	case "statement":
		c.Kind = TextKind(m[4])
	case "parse":
		c.Kind = KindPrepare
	case "execute":
		c.Kind, c.Params = KindExecute, csvParams(rec[csvDetail])
		if s, ok := binds[key]; ok {
			c.StartNs = s
			delete(binds, key)
		}
	}
	b.command(open(), c)
}

// csvParams reads the detail "parameters: $1 = '2', $2 = NULL".
func csvParams(detail string) []any {
	d, ok := strings.CutPrefix(detail, "parameters: ")
	if !ok {
		return nil
	}
	var ps []any
	for _, m := range csvParam.FindAllStringSubmatch(d, -1) {
		if m[1] == "NULL" {
			ps = append(ps, nil)
			continue
		}
		ps = append(ps, strings.ReplaceAll(m[1][1:len(m[1])-1], "''", "'"))
	}
	return ps
}

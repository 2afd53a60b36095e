package replay

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"shootout/internal/capture"
)

// step is one captured command as the replay sends it.
type step struct {
	capture.Command
	line int   // its line in the capture, for messages
	op   int   // index into ops; -1: sent untimed before the next (a statement's close)
	at   int64 // ns after the capture's start: its place on the original timeline
	// commit order: the commits that must be done before it is sent
	// (timing=commit), and its own place in that order (-1: it commits
	// nothing)
	needs, commit int
	// inTx: its session has a transaction open when it is sent (after
	// BEGIN until COMMIT or ROLLBACK, or while autocommit is off), so
	// its locks are held
	inTx bool
}

// sess is one captured session: its steps in the order the client sent
// them, replayed on a connection of its own.
type sess struct {
	id          int64
	line        int // its open line
	kind        int // index into the script's types
	steps       []step
	seq         int64 // the last command's, read so far
	first, last int64 // capture ns of its open and close, for the lanes
	// its place among the sessions in the order the capture saw them end,
	// and how many of the first in that order had ended before it began
	// (timing=session and commit start it after them)
	ended, after int
}

// script is a capture read and checked, ready to replay.
type script struct {
	file     string
	header   capture.Header
	sessions []*sess
	ops      []string
	opIndex  map[string]int
	// types are the kinds of session (capture.SessionType), in the order
	// the capture first opened one
	types     []string
	typeIndex map[string]int
	commits   int  // events in the commit order
	timed     bool // every command has its times: the original timeline can be kept
	ended     bool // every command has its end time: the order of commits is known
	// counted: the capture counted the rows each command returned (the
	// proxy and the slow log do; the general log and the csvlog do not,
	// and their commands' 0 rows say nothing)
	counted bool
	lanes   [][]*sess
	steps   int // commands sent per replay
	skipped int // commands the capture holds no answer to, or that cannot be sent again
}

// bad is bad input in the capture: one line naming the file and line.
func bad(file string, line int, format string, a ...any) error {
	return fmt.Errorf("--param capture: %s:%d: %s", file, line, fmt.Sprintf(format, a...))
}

// readScript reads a capture and refuses, naming the file and line,
// anything a replay cannot trust: not a capture, a line cut short, a
// capture without its end line, commands of a session it never opened
// or out of their order.
func readScript(path string) (*script, error) {
	h, lines, err := capture.Read(path)
	if err != nil {
		return nil, fmt.Errorf("--param capture: %w", err)
	}
	if h.Protocol != capture.ProtoMySQL && h.Protocol != capture.ProtoPostgres {
		return nil, bad(path, 1, "protocol %q: a replay speaks %s or %s", h.Protocol, capture.ProtoMySQL, capture.ProtoPostgres)
	}
	s := &script{file: path, header: h, opIndex: map[string]int{}, typeIndex: map[string]int{}, timed: true, ended: true,
		counted: h.Source == "proxy" || h.Source == "slow log"}
	byID := map[int64]*sess{}
	ended := false
	for i, l := range lines[1:] {
		n := i + 2
		if ended {
			return nil, bad(path, n, "a line after the end line")
		}
		if err := s.take(l, n, byID, &ended); err != nil {
			return nil, err
		}
	}
	if !ended {
		return nil, bad(path, len(lines)+1, "no end line: the capture was cut short (its proxy stopped without ending the file)")
	}
	if s.steps == 0 {
		return nil, bad(path, len(lines), "no command to replay")
	}
	s.order()
	return s, nil
}

// take adds one line of the capture.
func (s *script) take(l capture.Line, n int, byID map[int64]*sess, ended *bool) error {
	switch {
	case l.Open != nil:
		if byID[l.Open.Session] != nil {
			return bad(s.file, n, "session %d opened twice", l.Open.Session)
		}
		se := &sess{id: l.Open.Session, line: n, first: l.Open.AtNs, last: l.Open.AtNs, kind: s.typeOf(capture.SessionType(l.Open))}
		byID[se.id] = se
		s.sessions = append(s.sessions, se)
	case l.Command != nil:
		return s.command(*l.Command, n, byID[l.Command.Session])
	case l.Close != nil:
		se := byID[l.Close.Session]
		if se == nil {
			return bad(s.file, n, "close of session %d, which no open line started", l.Close.Session)
		}
		se.last = max(se.last, l.Close.AtNs)
	case l.End != nil:
		*ended = true
	}
	return nil
}

func (s *script) command(c capture.Command, n int, se *sess) error {
	if se == nil {
		return bad(s.file, n, "a command of session %d, which no open line started", c.Session)
	}
	if c.Seq <= se.seq {
		return bad(s.file, n, "session %d's command %d after its command %d: a capture keeps each session's order", c.Session, c.Seq, se.seq)
	}
	se.seq = c.Seq
	se.last = max(se.last, c.EndNs, c.StartNs)
	st := step{Command: c, line: n, op: -1, commit: -1}
	if c.Unanswered || !sendable(c.Kind) {
		// no answer to compare with, or nothing a client can send again
		s.skipped++
		return nil
	}
	if c.StartNs == 0 {
		s.timed = false
	}
	if c.EndNs == 0 {
		s.ended = false
	}
	if c.Kind != capture.KindClose {
		st.op = s.opOf(opName(s.header.Protocol, c))
	}
	se.steps = append(se.steps, st)
	s.steps++
	return nil
}

// sendable kinds are those a replay sends again; a reset or another
// command has no statement to send.
func sendable(kind string) bool {
	switch kind {
	case capture.KindReset, capture.KindOther:
		return false
	}
	return true
}

// opName is a command's operation: its statement's fingerprint, a
// prepare's prefixed, so each statement is timed apart from its
// preparation.
func opName(protocol string, c capture.Command) string {
	switch c.Kind {
	case capture.KindPing:
		return "ping"
	case capture.KindPrepare:
		return "prepare " + capture.Fingerprint(protocol, c.Text)
	}
	return capture.Fingerprint(protocol, c.Text)
}

func (s *script) opOf(name string) int {
	if i, ok := s.opIndex[name]; ok {
		return i
	}
	s.opIndex[name] = len(s.ops)
	s.ops = append(s.ops, name)
	return len(s.ops) - 1
}

func (s *script) typeOf(name string) int {
	if i, ok := s.typeIndex[name]; ok {
		return i
	}
	s.typeIndex[name] = len(s.types)
	s.types = append(s.types, name)
	return len(s.types) - 1
}

// order places every step on the timeline, numbers the commits in the
// order the capture saw them end, and shares the sessions out among
// lanes: a lane's sessions never overlapped in the capture, so one
// client replays them one after the other.
func (s *script) order() {
	base := s.header.StartNs
	type event struct {
		end int64
		st  *step
	}
	var commits []event
	for _, se := range s.sessions {
		var tx txState
		for i := range se.steps {
			st := &se.steps[i]
			if base == 0 || (st.StartNs != 0 && st.StartNs < base) {
				base = st.StartNs
			}
			st.inTx = tx.in()
			if commits1(st, &tx) {
				commits = append(commits, event{st.EndNs, st})
			}
		}
	}
	sort.SliceStable(commits, func(i, j int) bool { return commits[i].end < commits[j].end })
	ends := make([]int64, len(commits))
	for i, e := range commits {
		e.st.commit, ends[i] = i, e.end
	}
	s.commits = len(commits)
	for _, se := range s.sessions {
		for i := range se.steps {
			st := &se.steps[i]
			st.at = max(st.StartNs-base, 0)
			st.needs = sort.Search(len(ends), func(k int) bool { return ends[k] >= st.StartNs })
		}
	}
	s.lanes = lanes(s.sessions)
	sessionOrder(s.sessions)
}

// sessionOrder numbers the sessions in the order they ended and gives
// each the count of those that had ended before it began: what a later
// session of the application found (the tables a migration made, the
// rows an earlier request wrote) was done by then. A session waits only
// for sessions that began before it, and each lane replays its sessions
// in the order they began, so the waits make no cycle.
func sessionOrder(sessions []*sess) {
	byEnd := append([]*sess(nil), sessions...)
	sort.SliceStable(byEnd, func(i, j int) bool { return byEnd[i].last < byEnd[j].last })
	for i, se := range byEnd {
		se.ended = i
	}
	for _, se := range sessions {
		se.after = sort.Search(len(byEnd), func(k int) bool { return byEnd[k].last >= se.first })
	}
}

// txState follows a session's transactions as the server saw them.
type txState struct {
	open   bool // BEGIN ... COMMIT or ROLLBACK
	manual bool // autocommit off (MariaDB's SET autocommit=0): every statement is in one
}

func (t txState) in() bool { return t.open || t.manual }

// commits1 is whether st made work durable in the capture: a COMMIT, a
// write outside a transaction (autocommit), or autocommit turned back on
// (which commits what was open). A prepared BEGIN or COMMIT (PgJDBC
// sends them so) counts as its text says.
func commits1(st *step, tx *txState) bool {
	ok := st.Error == nil
	kind := st.Kind
	if kind == capture.KindExecute {
		kind = capture.TextKind(st.Text)
	}
	switch kind {
	case capture.KindBegin:
		tx.open = ok || tx.open
		return false
	case capture.KindCommit, capture.KindRollback:
		was := tx.in()
		// AND CHAIN opens the next transaction at once
		tx.open = ok && chained.MatchString(st.Text)
		return was && ok && kind == capture.KindCommit
	case capture.KindSet:
		off, isAutocommit := autocommitSet(st.Text)
		if !isAutocommit || !ok {
			return false
		}
		was := tx.manual
		tx.manual = off
		if was && !off {
			tx.open = false // turned back on, it commits what was open
			return true
		}
		return false
	case capture.KindQuery:
		return !tx.in() && ok && (st.Affected > 0 || ddl(st.Text))
	}
	return false
}

var (
	chained         = regexp.MustCompile(`(?i)\band\s+chain\b`)
	autocommitValue = regexp.MustCompile(`(?i)(?:^\s*set\s+|,\s*)(?:(?:session|local)\s+|@@(?:session\.|local\.)?)?autocommit\s*(?::?=|\s+to\s+)\s*'?(0|1|off|on|false|true)\b`)
)

// autocommitSet reads a SET of autocommit (MariaDB; PostgreSQL has none):
// whether it turns it off, and whether the statement sets it at all.
func autocommitSet(text string) (off, ok bool) {
	m := autocommitValue.FindStringSubmatch(text)
	if m == nil {
		return false, false
	}
	switch strings.ToLower(m[1]) {
	case "0", "off", "false":
		return true, true
	}
	return false, true
}

// ddl is a statement that changes the schema: outside a transaction it
// is made durable as it ends (MariaDB commits around it even inside
// one), with no rows affected to say so. A later session that reads the
// catalog (Rails' schema queries) must find it done.
func ddl(text string) bool {
	fp := capture.Fingerprint(capture.ProtoPostgres, text)
	for _, w := range []string{"create ", "alter ", "drop ", "truncate ", "rename "} {
		if strings.HasPrefix(fp, w) {
			return true
		}
	}
	return false
}

// lanes shares sessions out by the interval rule: each session goes to
// the lane that fell free first, a new lane when every lane's last
// session was still open; the lanes are as many as sessions were open
// at once.
func lanes(sessions []*sess) [][]*sess {
	byStart := append([]*sess(nil), sessions...)
	sort.SliceStable(byStart, func(i, j int) bool { return byStart[i].first < byStart[j].first })
	var out [][]*sess
	for _, se := range byStart {
		best := -1
		for i, l := range out {
			if end := l[len(l)-1].last; end <= se.first && (best < 0 || end < out[best][len(out[best])-1].last) {
				best = i
			}
		}
		if best < 0 {
			out = append(out, nil)
			best = len(out) - 1
		}
		out[best] = append(out[best], se)
	}
	return out
}

// short is a fingerprint cut for a line of the report.
func short(fp string) string {
	if len(fp) > 70 {
		return fp[:67] + "..."
	}
	return strings.TrimSpace(fp)
}

package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"shootout/internal/capture"
)

// myLogged is MariaDB writing every statement to its slow log
// (long_query_time=0) and its general log, as a user would turn them on.
var myLogged = map[string]string{"slow_query_log": "1", "slow_query_log_file": "slow.log", "long_query_time": "0",
	"general_log": "1", "general_log_file": "general.log", "log_output": "FILE"}

// pgLogged is PostgreSQL writing every statement and its duration to
// its csvlog, with the sessions' starts and ends.
var pgLogged = map[string]string{"logging_collector": "on", "log_destination": "csvlog", "log_filename": "pg.log",
	"log_min_duration_statement": "0", "log_statement": "all", "log_connections": "on", "log_disconnections": "on",
	"log_timezone": "UTC", "lc_messages": "C"}

// serverLog is a log the server writes in its directory, the --format
// that reads it, and the timing its capture replays with.
type serverLog struct{ path, format, timing string }

// keepLog copies a server's log into SHOOTOUT_KEEP_LOGS, when set: the
// csvlog feeds TestPgreplayTimedComparison.
func keepLog(t *testing.T, log, name string) {
	dir := os.Getenv("SHOOTOUT_KEEP_LOGS")
	if dir == "" {
		return
	}
	b, err := os.ReadFile(log)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), b, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// fromLog converts a server's log into a capture and checks that every
// session the proxy saw is in it, statement for statement in the same
// order, each once; the log's other sessions (the target's own setup,
// the proxy's dump) are reported, not compared, and own holds the
// fingerprints that are theirs alone.
func fromLog(t *testing.T, log, format string, proxied []string) (file string, own map[string]bool) {
	t.Helper()
	out := filepath.Join(t.TempDir(), format+".capture")
	if err := capture.FromLog(capture.LogOptions{From: log, Format: format, Out: out}); err != nil {
		t.Fatal(err)
	}
	logged := loggable(t, out)
	used := make([]bool, len(logged))
	var want, found int
	for _, file := range proxied {
		for _, s := range loggable(t, file) {
			want += len(s)
			if i := sameSession(s, logged, used); i >= 0 {
				used[i] = true
				found += len(s)
				continue
			}
			t.Errorf("%s: a session the proxy saw (%s) is not in the log: %s", format, filepath.Base(file), closest(s, logged, used))
		}
	}
	var others []string
	own = map[string]bool{}
	for i, s := range logged {
		if !used[i] && len(s) > 0 {
			others = append(others, fmt.Sprintf("%d from %.40q", len(s), s[0].s))
			for _, c := range s {
				own[c.fp] = true
			}
		}
	}
	for i, s := range logged {
		for _, c := range s {
			if used[i] {
				delete(own, c.fp)
			}
		}
	}
	t.Logf("%s: %d of the %d statements the proxy saw are in the log in their sessions' order; the log's other sessions: %s",
		format, found, want, strings.Join(others, ", "))
	return out, own
}

// stmt is a statement as both a log and the proxy can tell it, and
// its fingerprint.
type stmt struct{ s, fp string }

// spelled is what a log keeps of a statement: MariaDB strips white space
// and semicolons around it before it runs and logs it; PostgreSQL prints
// a parameter by its type (a timestamp's fraction without its trailing
// zeros), not as the client sent it.
func spelled(proto string, c *capture.Command) string {
	text := c.Text
	if proto == capture.ProtoMySQL {
		text = strings.TrimRight(strings.TrimSpace(text), "; \t\n")
	}
	s := c.Kind + " " + text
	for _, p := range c.Params {
		v := fmt.Sprint(p)
		if fraction.MatchString(v) {
			v = strings.TrimSuffix(strings.TrimRight(v, "0"), ".")
		}
		s += " " + v
	}
	return s
}

// fraction is a time with a fraction of a second, as a parameter's text.
var fraction = regexp.MustCompile(`^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\.\d+$`)

// loggable reads a capture's sessions as the statements a log shows:
// no pings, resets, closes of prepared statements, and nothing the
// server never answered (it never ran it).
func loggable(t *testing.T, file string) [][]stmt {
	t.Helper()
	h, lines, err := capture.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	at := map[int64]int{}
	var sessions [][]stmt
	for _, l := range lines {
		if l.Open != nil {
			at[l.Open.Session] = len(sessions)
			sessions = append(sessions, nil)
		}
		c := l.Command
		if c == nil || c.Unanswered {
			continue
		}
		switch c.Kind {
		case capture.KindPing, capture.KindReset, capture.KindClose, capture.KindOther:
			continue
		}
		l := stmt{spelled(h.Protocol, c), shortFP(capture.Fingerprint(h.Protocol, c.Text))}
		sessions[at[c.Session]] = append(sessions[at[c.Session]], l)
	}
	return sessions
}

// sameSession is the first log session not yet used that holds exactly
// the statements of s, or -1.
func sameSession(s []stmt, logged [][]stmt, used []bool) int {
	for i, l := range logged {
		if !used[i] && len(l) == len(s) && common(s, l) == len(s) {
			return i
		}
	}
	return -1
}

func common(a, b []stmt) int {
	n := 0
	for n < len(a) && n < len(b) && a[n].s == b[n].s {
		n++
	}
	return n
}

// closest says where the log session that agrees longest with s departs.
func closest(s []stmt, logged [][]stmt, used []bool) string {
	best, at := -1, 0
	for i, l := range logged {
		if n := common(s, l); !used[i] && (best < 0 || n > at) {
			best, at = i, n
		}
	}
	if best < 0 {
		return fmt.Sprintf("%d statements, the log has no session left", len(s))
	}
	l := logged[best]
	say := func(x []stmt, i int) string {
		if i < len(x) {
			return fmt.Sprintf("%.200q", x[i].s)
		}
		return "its end"
	}
	return fmt.Sprintf("%d statements; the closest logged session (%d) agrees on %d, then has %s where the proxy saw %s",
		len(s), len(l), at, say(l, at), say(s, at))
}

// shortFP is a fingerprint as a replay's drift names it.
func shortFP(fp string) string {
	if len(fp) > 70 {
		return fp[:67] + "..."
	}
	return strings.TrimSpace(fp)
}

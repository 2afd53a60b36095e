package capture

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	slowUser   = regexp.MustCompile(`^# User@Host: ([^\[]*)\[[^\]]*\] @ (\S*) \[([^\]]*)\](?:\s+Id:\s*(\d+))?`)
	slowThread = regexp.MustCompile(`^# Thread_id: (\d+)\s+Schema: (\S*)`)
	slowTimes  = regexp.MustCompile(`^# Query_time: ([\d.]+)\s+Lock_time: [\d.]+\s+Rows_sent: (\d+)`)
	slowRows   = regexp.MustCompile(`Rows_affected: (\d+)`)
	slowSet    = regexp.MustCompile(`^SET (?:(?:last_insert_id|insert_id|timestamp)=[\d.]+,?)+;$`)
	slowStamp  = regexp.MustCompile(`timestamp=(\d+)`)
	slowUse    = regexp.MustCompile("^use `?([^`;]*)`?;$")
)

// slowEntry is one statement of the slow log: its comment lines, then
// `use` and `SET timestamp` lines, then the statement.
type slowEntry struct {
	line             int
	thread, user     string
	client, schema   string
	start, dur, rows int64
	affected         int64
	text             []string
}

// parseSlow reads MariaDB's (and MySQL's) slow query log, written with
// long_query_time=0 so that it holds every statement.
func parseSlow(lr *logReader, b *builder) error {
	mysqlMissing(b, "errors: the slow log does not say which statements failed",
		"prepares and closes of prepared statements, and commands that are no statements (ping, COM_INIT_DB: a change of schema is recorded as an init_db before the statement that ran in it)",
		"when sessions connected and quit: a session opens at its first statement and closes at the log's end",
		"rows returned by SHOW CREATE TABLE: the slow log writes Rows_sent: 0 for it")
	var e *slowEntry
	for {
		line, ok, err := lr.line()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if serverStart(b, line) {
			if err := slowFlush(lr, b, e); err != nil {
				return err
			}
			e = nil
			continue
		}
		if e, err = slowLine(lr, b, e, line); err != nil {
			return err
		}
	}
	return slowFlush(lr, b, e)
}

func slowLine(lr *logReader, b *builder, e *slowEntry, line string) (*slowEntry, error) {
	switch {
	case strings.HasPrefix(line, "# Time: "):
		if err := slowFlush(lr, b, e); err != nil {
			return nil, err
		}
		return nil, nil
	case strings.HasPrefix(line, "# User@Host: "):
		if err := slowFlush(lr, b, e); err != nil {
			return nil, err
		}
		m := slowUser.FindStringSubmatch(line)
		if m == nil {
			return nil, lr.errorf("a # User@Host line that is not the slow log's")
		}
		return &slowEntry{line: lr.n, user: m[1], client: strings.TrimSpace(m[2] + " " + m[3]), thread: m[4]}, nil
	case e == nil:
		if strings.TrimSpace(line) == "" {
			return nil, nil
		}
		return nil, lr.errorf("not a slow query log (want a # Time:, # User@Host: or the server's head line here)")
	case len(e.text) == 0 && strings.HasPrefix(line, "# "):
		slowComment(e, line)
	case len(e.text) == 0 && slowSet.MatchString(line):
		if m := slowStamp.FindStringSubmatch(line); m != nil {
			sec, _ := strconv.ParseInt(m[1], 10, 64)
			e.start = sec * 1e9
		}
	case len(e.text) == 0 && slowUse.MatchString(line):
		e.schema = slowUse.FindStringSubmatch(line)[1]
	default:
		e.text = append(e.text, line)
	}
	return e, nil
}

func slowComment(e *slowEntry, line string) {
	if m := slowThread.FindStringSubmatch(line); m != nil {
		e.thread, e.schema = m[1], m[2]
	}
	if m := slowTimes.FindStringSubmatch(line); m != nil {
		sec, _ := strconv.ParseFloat(m[1], 64)
		e.dur = int64(sec * 1e9)
		e.rows, _ = strconv.ParseInt(m[2], 10, 64)
	}
	if m := slowRows.FindStringSubmatch(line); m != nil {
		e.affected, _ = strconv.ParseInt(m[1], 10, 64)
	}
}

// slowFlush records an entry once its statement has ended (at the next
// entry or the log's end).
func slowFlush(lr *logReader, b *builder, e *slowEntry) error {
	if e == nil {
		return nil
	}
	if len(e.text) == 0 {
		return badInput("%s:%d: an entry with no statement (the log is cut short here?)", lr.path, e.line)
	}
	if e.thread == "" {
		return badInput("%s:%d: an entry with no thread id (# Thread_id or User@Host's Id)", lr.path, e.line)
	}
	text := strings.TrimSuffix(strings.Join(e.text, "\n"), ";")
	s, opened := b.session(e.thread, Open{AtNs: e.start, User: e.user, Client: e.client, Database: e.schema})
	if !opened && e.schema != "" && e.schema != s.db {
		b.command(s, Command{Kind: KindInitDB, Text: "USE `" + e.schema + "`", StartNs: e.start, EndNs: e.start})
	}
	if e.schema != "" {
		s.db = e.schema
	}
	kind := TextKind(text)
	if a, ok := strings.CutPrefix(text, "# administrator command: "); ok {
		kind, text = KindOther, a
	}
	b.command(s, Command{Kind: kind, Text: text, StartNs: e.start, EndNs: e.start + e.dur, Rows: e.rows, Affected: e.affected})
	return nil
}

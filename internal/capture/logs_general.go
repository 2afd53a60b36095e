package capture

import (
	"regexp"
	"strings"
)

var (
	// [time\t] spaces thread-id space command \t argument
	generalLine    = regexp.MustCompile(`^(\d{6}\s+\d{1,2}:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+)?\s+(\d+) ([A-Z][A-Za-z]*(?: [A-Za-z]+)?)\t(.*)$`)
	generalConnect = regexp.MustCompile(`^(\S*)@(\S*) (?:on|as \S+ on) (\S*)`)
)

type generalEntry struct {
	at                   int64
	thread, command, arg string
}

// parseGeneral reads MariaDB's (and MySQL's) general query log: every
// command as the server received it, a time only when the second
// changed, no durations, rows or errors.
func parseGeneral(lr *logReader, b *builder) error {
	mysqlMissing(b, "end times: the general log gives no durations (end_ns is 0)",
		"rows, rows affected and errors",
		"prepares and closes of prepared statements: the log gives no statement ids, and an execution is recorded as the text query it logs")
	var at int64
	var e *generalEntry
	for {
		line, ok, err := lr.line()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if serverStart(b, line) {
			generalFlush(b, e)
			e = nil
			continue
		}
		m := generalLine.FindStringSubmatch(line)
		if m == nil {
			if e == nil {
				return lr.errorf("not a general query log (want [time] thread-id command TAB argument)")
			}
			e.arg += "\n" + line // a statement over several lines
			continue
		}
		generalFlush(b, e)
		if m[1] != "" {
			if at, err = mysqlTime(m[1]); err != nil {
				return lr.errorf("%v", err)
			}
		}
		e = &generalEntry{at: at, thread: m[2], command: m[3], arg: m[4]}
	}
	generalFlush(b, e)
	return nil
}

// generalKinds are the commands whose kind the command alone says;
// generalSkipped are the prepared statements' own commands, which the log
// gives without the statement's id (an Execute is its text, a query).
var (
	generalKinds   = map[string]string{"Ping": KindPing, "Reset connection": KindReset}
	generalSkipped = map[string]bool{"Prepare": true, "Close stmt": true, "Reset stmt": true, "Long Data": true}
)

func generalFlush(b *builder, e *generalEntry) {
	if e == nil {
		return
	}
	switch e.command {
	case "Connect":
		m := generalConnect.FindStringSubmatch(e.arg)
		if m == nil {
			return // a refused login: no session
		}
		b.close(e.thread, e.at, "a new connection took its thread id")
		b.session(e.thread, Open{AtNs: e.at, User: m[1], Client: m[2], Database: m[3]})
		return
	case "Quit":
		b.close(e.thread, e.at, "client quit")
		return
	}
	if generalSkipped[e.command] {
		return
	}
	s, _ := b.session(e.thread, Open{AtNs: e.at})
	c := Command{StartNs: e.at, Text: e.arg}
	switch {
	case e.command == "Query" || e.command == "Execute":
		c.Kind = TextKind(e.arg)
	case e.command == "Init DB":
		c.Kind, c.Text = KindInitDB, "USE `"+e.arg+"`"
	case generalKinds[e.command] != "":
		c.Kind = generalKinds[e.command]
	default:
		c.Kind, c.Text = KindOther, strings.TrimSpace(e.command+" "+e.arg)
	}
	b.command(s, c)
}

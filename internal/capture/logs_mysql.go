package capture

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The lines MariaDB (and MySQL) write at the head of both logs, again at
// every restart.
var (
	mysqlStarted = regexp.MustCompile(`^\S+, Version: (\S+) .*started with:$`)
	mysqlPort    = regexp.MustCompile(`^(Tcp port: |Time\s+Id\s+Command\s+Argument$)`)
)

// serverStart reads a log's head: a server (re)started, its thread ids
// start again.
func serverStart(b *builder, line string) bool {
	if m := mysqlStarted.FindStringSubmatch(line); m != nil {
		b.closeAll("the server restarted")
		b.h.Protocol, b.h.ServerVersion = ProtoMySQL, m[1]
		return true
	}
	return mysqlPort.MatchString(line)
}

// mysqlTime reads both logs' times: MariaDB's "261128  3:18:20" (the
// server's time zone, taken as this machine's) and MySQL's RFC 3339.
func mysqlTime(s string) (int64, error) {
	f := strings.Fields(s)
	if len(f) == 1 {
		t, err := time.Parse(time.RFC3339Nano, f[0])
		return t.UnixNano(), err
	}
	if len(f) != 2 {
		return 0, fmt.Errorf("time %q", s)
	}
	if len(f[1]) == 7 {
		f[1] = "0" + f[1]
	}
	t, err := time.ParseInLocation("060102 15:04:05", f[0]+" "+f[1], time.Local)
	return t.UnixNano(), err
}

func mysqlMissing(b *builder, extra ...string) {
	b.h.Protocol, b.h.Timing = ProtoMySQL, TimingSecond
	b.h.Missing = append([]string{
		"sub-second start times: the log gives the second a statement started, in the server's time zone (read as this machine's)",
		"prepared statements' parameters: an execution is logged with its parameters written into the text, so it is recorded as a text query (kind by its first word)",
		"rows' checksums",
		"white space and semicolons before and after a statement: the server strips them before it runs and logs the statement",
		"passwords in statements (IDENTIFIED BY, PASSWORD): replaced by '<redacted>'",
	}, extra...)
}

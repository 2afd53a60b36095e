package target

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ServerLog is an instance whose server writes a log of its own. The run
// keeps a copy when the server dies: the log lives in the server's
// directory, which goes with the cell, and a crash's cause is in the log.
type ServerLog interface {
	// ServerLog is the log's path.
	ServerLog() string
}

func (in *mariadbInstance) ServerLog() string  { return in.errorLog }
func (in *postgresInstance) ServerLog() string { return in.logFile }
func (in *nativeInstance) ServerLog() string   { return in.logFile }

// readTail is the last limit bytes of the file at path, from the first
// whole line in them, after a line saying how much was left out.
func readTail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	skip := max(st.Size()-limit, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, skip, st.Size()-skip))
	if err != nil || skip == 0 {
		return b, err
	}
	if i := strings.IndexByte(string(b), '\n'); i >= 0 {
		skip, b = skip+int64(i)+1, b[i+1:]
	}
	return append([]byte(fmt.Sprintf("[shootout: the first %d bytes of %s are left out]\n", skip, filepath.Base(path))), b...), nil
}

// KeepLog copies the last limit bytes of the log at src to dst.
func KeepLog(src, dst string, limit int64) error {
	b, err := readTail(src, limit)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// crashTailBytes bounds what is read of a log for its crash report, which
// is at its end.
const crashTailBytes = 256 << 10

// frameAddr is the address a stack frame's line ends with.
var frameAddr = regexp.MustCompile(`\s*\[0x[0-9a-f]+\]\s*$`)

// handlerFrame is a frame of MariaDB's own signal handler, or the kernel's
// return from it: the frames that say where the server was come after.
var handlerFrame = regexp.MustCompile(`my_print_stacktrace|handle_fatal_signal|__restore_rt|sigaction`)

// crashFrames is how many stack frames a crash's summary quotes.
const crashFrames = 4

// crashReport picks from a MariaDB crash report, at the end of its error
// log, the lines that say why it died: the "got signal" line, the query,
// the first stack frames past the signal handler and the connection. The
// report's last lines (ulimits, kernel version) say nothing of the cause.
// It is "" for a log without a crash report.
func crashReport(log string) string {
	lines := strings.Split(log, "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, " got signal ") {
			at = i
		}
	}
	if at < 0 {
		return ""
	}
	picked := []string{strings.TrimSpace(lines[at])}
	frames := 0
	for _, l := range lines[at+1:] {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "Query ("):
			picked = append(picked, shorten(l, 300))
		case strings.HasPrefix(l, "Connection ID"):
			picked = append(picked, l)
		case frameAddr.MatchString(l) && !handlerFrame.MatchString(l) && frames < crashFrames:
			picked = append(picked, frameAddr.ReplaceAllString(l, ""))
			frames++
		}
	}
	return strings.Join(picked, " | ")
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// logSummary is what a death's message quotes of the server's log: the
// crash report's lines that say why, or else the log's last lines.
func logSummary(logFile string) string {
	b, err := readTail(logFile, crashTailBytes)
	if err != nil {
		return ""
	}
	if r := crashReport(string(b)); r != "" {
		return "its crash report: " + r
	}
	if t := tailString(string(b), 5); strings.TrimSpace(t) != "" {
		return "its log ends: " + lastLines(t, 5)
	}
	return ""
}

// ServerLog is the log of the first node that is gone, the one Death
// names ("" while every node runs).
func (in *galeraInstance) ServerLog() string {
	for _, n := range in.nodes {
		if n.proc != nil && !n.proc.running() {
			return n.logFile
		}
	}
	return ""
}

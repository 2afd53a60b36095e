// Package capture records what an application sends its database server
// (a proxy of shootout's own between the two) in one versioned format of
// JSON lines (docs/capture.md), and summarises such a file.
package capture

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Format and Version name the file format; a reader refuses any other
// version rather than guess at fields it does not know.
const (
	Format  = "shootout-capture"
	Version = 1
)

// ErrBadInput marks an error in what the user gave (a flag, a file): the
// command exits 2 on it.
var ErrBadInput = errors.New("bad input")

// inputError is bad input: its message alone, and ErrBadInput to errors.Is.
type inputError struct{ err error }

func (e inputError) Error() string   { return e.err.Error() }
func (e inputError) Unwrap() []error { return []error{e.err, ErrBadInput} }

func badInput(format string, a ...any) error { return inputError{fmt.Errorf(format, a...)} }

// Header is the file's first line.
type Header struct {
	Type          string   `json:"type"` // "header"
	Format        string   `json:"format"`
	Version       int      `json:"version"`
	Protocol      string   `json:"protocol"` // "mysql" (MariaDB, MySQL) or "postgresql"
	Source        string   `json:"source"`   // "proxy", or the log it was read from: "slow log", "general log", "csvlog"
	Server        string   `json:"server"`   // host:port the proxy forwarded to; never a user or password
	ServerVersion string   `json:"server_version"`
	StartNs       int64    `json:"start_ns"` // Unix time the capture began
	Missing       []string `json:"missing"`  // what this source cannot give
	// Timing is "second" when start_ns is known to the second only (the
	// MariaDB logs); absent, start_ns and end_ns are as exact as read
	Timing string `json:"timing,omitempty"`
	// Dump is the data the capture started from, when there is one
	Dump *Dump `json:"dump,omitempty"`
}

// Open is a session's first line.
type Open struct {
	Type     string            `json:"type"` // "open"
	Session  int64             `json:"session"`
	AtNs     int64             `json:"at_ns"`
	Client   string            `json:"client"`
	User     string            `json:"user"`
	Database string            `json:"database"`
	Attrs    map[string]string `json:"attrs,omitempty"`
}

// Command is one command of a session and the server's answer.
type Command struct {
	Type     string `json:"type"` // "command"
	Session  int64  `json:"session"`
	Seq      int64  `json:"seq"` // 1, 2, ... within the session, in the order the client sent them
	Kind     string `json:"kind"`
	Text     string `json:"text,omitempty"`
	Stmt     string `json:"stmt,omitempty"` // the prepared statement's id or name
	Params   []any  `json:"params,omitempty"`
	StartNs  int64  `json:"start_ns"`
	EndNs    int64  `json:"end_ns"`
	Rows     int64  `json:"rows"`
	Affected int64  `json:"affected"`
	Checksum string `json:"checksum,omitempty"`
	Error    *Error `json:"error,omitempty"`
	// Unanswered: the capture or the connection stopped before the answer
	Unanswered bool `json:"unanswered,omitempty"`
}

// Error is the server's error answer to a command.
type Error struct {
	Code    string `json:"code"`            // MySQL's error number, PostgreSQL's SQLSTATE
	State   string `json:"state,omitempty"` // MySQL's SQLSTATE
	Message string `json:"message"`
}

// Close is a session's last line.
type Close struct {
	Type    string `json:"type"` // "close"
	Session int64  `json:"session"`
	AtNs    int64  `json:"at_ns"`
	Reason  string `json:"reason"`
}

// End is the file's last line; a file without one was cut short (the
// proxy was killed), and --show says so.
type End struct {
	Type     string `json:"type"` // "end"
	AtNs     int64  `json:"at_ns"`
	Reason   string `json:"reason"`
	Sessions int64  `json:"sessions"`
	Commands int64  `json:"commands"`
	Cut      int64  `json:"cut_sessions"` // sessions still open when the capture stopped
}

// writer writes lines as they come, one at a time. Lines that come
// before the header (the header waits for the server's version, which
// the first session learns) are held until it is written.
type writer struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	header  bool
	held    [][]byte
	err     error
	counted struct{ sessions, commands int64 }
}

func newWriter(path string) (*writer, error) {
	// an earlier capture is never overwritten
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, badInput("--out: %w (a capture is never overwritten)", err)
	}
	return &writer{f: f, w: bufio.NewWriter(f)}, nil
}

func (w *writer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // every line is a struct of plain fields
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	switch v.(type) {
	case Open:
		w.counted.sessions++
	case Command:
		w.counted.commands++
	}
	if _, ok := v.(Header); ok && !w.header {
		w.header = true
		w.write(b)
		for _, l := range w.held {
			w.write(l)
		}
		w.held = nil
		return
	}
	if !w.header {
		w.held = append(w.held, b)
		return
	}
	w.write(b)
}

func (w *writer) write(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.w.Write(b)
	// a line is on disk as soon as the buffer has no more to take, so a
	// killed proxy leaves every finished command behind
	if w.err == nil && w.w.Buffered() > 0 {
		w.err = w.w.Flush()
	}
}

func (w *writer) hasHeader() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.header
}

func (w *writer) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if err := w.f.Close(); w.err == nil {
		w.err = err
	}
	return w.err
}

// Line is one decoded line of a capture, with its kind in Type.
type Line struct {
	Type    string
	Header  *Header
	Open    *Open
	Command *Command
	Close   *Close
	End     *End
}

// Read reads a capture, refusing anything that is not one: the error
// names the file and line (ErrBadInput).
func Read(path string) (Header, []Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, nil, badInput("%s: %w", path, err)
	}
	defer f.Close()
	return read(path, f)
}

func read(path string, r io.Reader) (Header, []Line, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var h Header
	var lines []Line
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF && len(b) == 0 {
			if n == 1 {
				return h, nil, badInput("%s: empty, not a capture", path)
			}
			return h, lines, nil
		}
		if err != nil && err != io.EOF {
			return h, nil, fmt.Errorf("%s: %w", path, err)
		}
		if err == io.EOF {
			return h, nil, badInput("%s:%d: truncated line (no newline at its end)", path, n)
		}
		l, err := decodeLine(b, n == 1)
		if err != nil {
			return h, nil, badInput("%s:%d: %v", path, n, err)
		}
		if n == 1 {
			h = *l.Header
		}
		lines = append(lines, l)
	}
}

func decodeLine(b []byte, first bool) (Line, error) {
	var l Line
	var kind struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &kind); err != nil {
		if first {
			return l, fmt.Errorf("not a shootout capture (no JSON line)")
		}
		return l, fmt.Errorf("not a JSON line: %v", err)
	}
	l.Type = kind.Type
	if first != (kind.Type == "header") {
		if first {
			return l, fmt.Errorf("not a shootout capture (the first line is no header)")
		}
		return l, fmt.Errorf("a second header")
	}
	var dst any
	switch kind.Type {
	case "header":
		l.Header = &Header{}
		dst = l.Header
	case "open":
		l.Open = &Open{}
		dst = l.Open
	case "command":
		l.Command = &Command{}
		dst = l.Command
	case "close":
		l.Close = &Close{}
		dst = l.Close
	case "end":
		l.End = &End{}
		dst = l.End
	default:
		return l, fmt.Errorf("unknown line type %q (valid: header, open, command, close, end)", kind.Type)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return l, fmt.Errorf("%s line: %v", kind.Type, err)
	}
	if first {
		return l, checkHeader(*l.Header)
	}
	return l, nil
}

func checkHeader(h Header) error {
	if h.Format != Format {
		return fmt.Errorf("not a shootout capture (format %q, want %q)", h.Format, Format)
	}
	if h.Version != Version {
		return fmt.Errorf("capture format version %d; this shootout reads version %d", h.Version, Version)
	}
	return nil
}

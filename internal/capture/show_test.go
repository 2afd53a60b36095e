package capture

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// writeCapture writes a capture of n sessions, each running the same
// statements with other literals, through the proxy's own writer.
func writeCapture(t *testing.T, n int, end bool) string {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	w, err := newWriter(path)
	must(t, err)
	p := &proxy{protocol: ProtoMySQL, server: "127.0.0.1:3306", w: w, start: 1e18}
	p.serverVersion("10.11.19-MariaDB")
	at := int64(1e18)
	for s := int64(1); s <= int64(n); s++ {
		w.line(Open{Type: "open", Session: s, AtNs: at, User: "app", Database: "shop", Attrs: map[string]string{"_program_name": "php"}})
		for i := int64(1); i <= 3; i++ {
			c := Command{Type: "command", Session: s, Seq: i, Kind: KindQuery, StartNs: at, EndNs: at + 1e6*i,
				Text: fmt.Sprintf("SELECT name FROM products WHERE id = %d AND note = '%s'", s*i, strings.Repeat("x", 200))}
			if i == 3 {
				c.Text, c.Error = "SELECT * FROM nope", &Error{Code: "1146", Message: "no such table"}
			}
			w.line(c)
			at += 1e6 * i
		}
		w.line(Close{Type: "close", Session: s, AtNs: at, Reason: "client quit"})
	}
	if end {
		w.line(End{Type: "end", AtNs: at, Reason: "stopped by a signal", Sessions: int64(n), Commands: int64(3 * n)})
	}
	must(t, w.close())
	return path
}

func TestShowSummarisesSessionsAndFingerprintsWithin100Columns(t *testing.T) {
	path := writeCapture(t, 4, true)
	var out bytes.Buffer
	must(t, Show(&out, path, 100))
	text := out.String()
	for _, l := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	for _, want := range []string{
		"4 sessions, 12 commands (4 errors, 0 unanswered)",
		"       4       12       4   24.000 ms  app@shop php",
		"       8   12.000 ms  1.000 ms       0  select name from products where id = ? and note = ?",
		"       4   12.000 ms  3.000 ms       4  select * from nope",
		"ended: stopped by a signal",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("--show lacks %q:\n%s", want, text)
		}
	}
	var cut bytes.Buffer
	must(t, Show(&cut, writeCapture(t, 1, false), 100))
	if !strings.Contains(cut.String(), "CUT SHORT: no end line") {
		t.Errorf("a capture without its end line is not said to be cut short:\n%s", cut.String())
	}
}

func TestReadRefusesWhatIsNotACaptureNamingFileAndLine(t *testing.T) {
	good, err := os.ReadFile(writeCapture(t, 1, true))
	must(t, err)
	lines := strings.SplitAfter(string(good), "\n")
	dir := t.TempDir()
	for name, c := range map[string]struct{ text, want string }{
		"log":       {"# Time: 2026-11-28T02:00:00\nSELECT 1;\n", ":1: not a shootout capture (no JSON line)"},
		"empty":     {"", ": empty, not a capture"},
		"truncated": {strings.Join(lines[:3], "") + strings.TrimSuffix(lines[3], "\n"), ":4: truncated line"},
		"version":   {strings.Replace(lines[0], `"version":1`, `"version":9`, 1), ":1: capture format version 9; this shootout reads version 1"},
		"format":    {`{"type":"header","format":"other","version":1}` + "\n", `:1: not a shootout capture (format "other"`},
		"type":      {lines[0] + `{"type":"query"}` + "\n", `:2: unknown line type "query"`},
		"broken":    {lines[0] + lines[1] + "{\"type\":\"command\",\"seq\":\"x\"}\n", ":3: command line: "},
	} {
		path := filepath.Join(dir, name)
		must(t, os.WriteFile(path, []byte(c.text), 0o644))
		_, _, err := Read(path)
		if err == nil || !errors.Is(err, ErrBadInput) || !strings.HasPrefix(err.Error(), path+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line starting %q", name, err, path+c.want)
		}
	}
}

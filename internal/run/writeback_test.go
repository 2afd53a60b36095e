package run

import (
	"errors"
	"strings"
	"testing"

	"shootout/internal/result"
	"shootout/internal/target"
)

// TestWriteBackRecordsWhetherItFinished: the cell's figures say whether
// the write-back wrote everything and, when not, what it left; nothing
// written back (an external server) is neither finished nor not.
func TestWriteBackRecordsWhetherItFinished(t *testing.T) {
	for _, c := range []struct {
		name     string
		got      target.WriteBackResult
		err      error
		finished string // "true", "false", "" for absent
		left     int64
		note     string
	}{
		{"finished", target.WriteBackResult{}, nil, "true", 0, ""},
		{"gave up", target.WriteBackResult{Left: &target.Unwritten{Bytes: 3 << 20, What: "192 InnoDB dirty pages"}}, nil, "false", 3 << 20,
			"the write-back stopped after 300.0 s with 192 InnoDB dirty pages (3.0 MiB) left"},
		{"failed", target.WriteBackResult{}, errors.New("Error 2013"), "false", -1, "with an unknown amount (the write-back failed) left"},
		{"external", target.WriteBackResult{Skipped: "external server: nothing written back"}, nil, "", 0, "external server: nothing written back"},
	} {
		var s result.Server
		finishedWriteBack(c.got, c.err).fill(&s, 300)
		finished := ""
		if s.WriteBackFinished != nil {
			finished = map[bool]string{true: "true", false: "false"}[*s.WriteBackFinished]
		}
		if s.WriteBackS != 300 || finished != c.finished || s.WriteBackLeftBytes != c.left || !strings.Contains(s.Note, c.note) || (c.note == "") != (s.Note == "") {
			t.Errorf("%s: %.0f s, finished %q, left %d, note %q; want finished %q, left %d, note %q", c.name, s.WriteBackS, finished, s.WriteBackLeftBytes, s.Note, c.finished, c.left, c.note)
		}
	}
}

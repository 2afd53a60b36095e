package run

import (
	"path/filepath"
	"strings"

	"shootout/internal/result"
	"shootout/internal/target"
)

// keptLogBytes bounds the copy of a dead server's log: its end holds the
// crash report, its start a long load's chatter.
const keptLogBytes = 256 << 10

// keepServerLog copies a dead server's own log beside the cell's result
// file, since the server's directory, and the log in it, goes when the cell
// ends; it says where, for the status, or why it could not ("" for a
// server without a log of its own).
func (c *cellRun) keepServerLog() string {
	l, ok := c.mortal.(target.ServerLog)
	if !ok || l.ServerLog() == "" || c.OutDir == "" {
		return ""
	}
	dst := keptLogPath(c.OutDir, c.cell.ID)
	if err := target.KeepLog(l.ServerLog(), dst, keptLogBytes); err != nil {
		return "its log could not be kept: " + err.Error()
	}
	rel, err := filepath.Rel(c.OutDir, dst)
	if err != nil {
		rel = dst
	}
	return "its log is kept in " + rel
}

// keptLogPath is where a cell's dead server's log is kept: cells/ID.server.log.
func keptLogPath(outDir, id string) string {
	return strings.TrimSuffix(result.Path(outDir, id), ".json") + ".server.log"
}

package run

import (
	"fmt"

	"shootout/internal/result"
	"shootout/internal/target"
)

// writeBack is what the write-back after the measured run did, kept
// until the server's figures are filled in.
type writeBack struct {
	ran     bool   // false: nothing was written back (a stalled run, an external server)
	skipped string // why nothing was written back, when the target said
	left    *target.Unwritten
}

// finishedWriteBack is a write-back that returned (err: it failed, and
// what it left is unknown).
func finishedWriteBack(got target.WriteBackResult, err error) writeBack {
	if got.Skipped != "" {
		return writeBack{skipped: got.Skipped}
	}
	wb := writeBack{ran: true, left: got.Left}
	if err != nil && wb.left == nil {
		wb.left = &target.Unwritten{Bytes: -1, What: "an unknown amount (the write-back failed)"}
	}
	return wb
}

// fill records the write-back in the server's figures: its bytes and IOs
// are in them only as far as it got, which the note says.
func (wb writeBack) fill(s *result.Server, secs float64) {
	s.WriteBackS = secs
	s.Note = joinNotes(s.Note, wb.skipped)
	if !wb.ran {
		return
	}
	finished := wb.left == nil
	s.WriteBackFinished = &finished
	if finished {
		return
	}
	s.WriteBackLeftBytes, s.WriteBackLeft = wb.left.Bytes, wb.left.What
	s.Note = joinNotes(s.Note, fmt.Sprintf("the write-back stopped after %.1f s with %s left: their bytes and IOs are not in these figures",
		secs, unwrittenText(wb.left.Bytes, wb.left.What)))
}

// unwrittenText is what a write-back left, with its size when known.
func unwrittenText(bytes int64, what string) string {
	if bytes < 0 {
		return what
	}
	return fmt.Sprintf("%s (%.1f MiB)", what, float64(bytes)/(1<<20))
}

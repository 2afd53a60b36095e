package replay

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// differences are the kinds of answer a replay counts per fingerprint,
// as the cell's drift says them.
var differences = []struct{ key, says string }{
	{"new_error", "errors the capture did not have"},
	{"lost_error", "errors the capture had, not the replay"},
	{"other_error", "other errors than the capture's"},
	{"rows", "other counts of rows than the capture's"},
	{"checksum", "other rows than the capture's"},
}

// Check says what was replayed, how, and, per fingerprint, which answers
// differed from the capture's (drift: the replay did other work than the
// application did); a replay the window cut short says so.
func (w *Workload) Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	inv := workload.Invariants{OK: true}
	timing := "timing=" + w.timing
	if w.defaulted {
		timing += " (the most faithful this capture allows)"
	}
	if w.timing == Original && w.speed != 1 {
		timing += fmt.Sprintf(", speed=%g", w.speed)
	}
	sent := counters["sent"]
	inv.Checked = append(inv.Checked, fmt.Sprintf("%s: %d of the capture's %d commands sent, in %d sessions each on a connection of its own, in its captured order; %s",
		w.DefaultDataset(), sent, w.s.steps, len(w.s.sessions), timing))
	if w.s.skipped > 0 {
		inv.Checked = append(inv.Checked, fmt.Sprintf("%d commands of the capture not sent: unanswered in the capture, or a reset or other command with no statement", w.s.skipped))
	}
	if sent < int64(w.s.steps) {
		inv.Drift = append(inv.Drift, fmt.Sprintf("the window ended with %d of %d commands sent: the figures are of part of the capture (a longer --duration)", sent, w.s.steps))
	}
	w.mu.Lock()
	clients, lag, first, givenUp := w.clients, slices.Clone(w.lag), w.first, slices.Clone(w.givenUp)
	w.mu.Unlock()
	if clients > 0 && clients < len(w.s.lanes) {
		kept := ""
		if w.timing == Original && w.s.ended {
			kept = ", and a command could run before a commit the capture saw end before it"
		}
		inv.Drift = append(inv.Drift, fmt.Sprintf("%d clients for %d sessions open at once in the capture: sessions that overlapped ran one after the other%s (--clients %d)", clients, len(w.s.lanes), kept, len(w.s.lanes)))
	}
	if w.timing == Original && !w.s.ended {
		inv.Drift = append(inv.Drift, "timing=original kept the captured times alone: the capture has no end times, so a command could run before a commit the capture saw end before it (timing=session keeps the sessions' order)")
	}
	if len(givenUp) > 0 {
		inv.Drift = append(inv.Drift, fmt.Sprintf("sessions given up when their connection was lost (the driver connected their client again, which went on with its next session): %s", strings.Join(givenUp, ", ")))
	}
	if len(lag) > 0 {
		inv.Checked = append(inv.Checked, behindLine(lag))
	}
	// after the run, on the data the replay left: what the statements
	// found is what was planned
	inv.Plans = w.plans(ctx, db)
	inv.SessionTypes = w.sessionTypes()
	diffs := w.differed(counters, first)
	inv.Drift = append(inv.Drift, diffs...)
	if len(diffs) == 0 {
		inv.Checked = append(inv.Checked, fmt.Sprintf("every answer of the %d commands sent equal to the capture's (errors, counts of rows, and the checksum of text rows)", sent))
	}
	return inv
}

// behindLine says how far the sessions fell behind their schedule.
func behindLine(lag []time.Duration) string {
	slices.Sort(lag)
	late := 0
	for _, l := range lag {
		if l > time.Millisecond {
			late++
		}
	}
	return fmt.Sprintf("behind schedule: %d of %d sessions more than 1 ms, the median session by %v, the furthest by %v",
		late, len(lag), lag[len(lag)/2].Round(time.Microsecond), lag[len(lag)-1].Round(time.Microsecond))
}

// differed is a line per fingerprint whose answers differed, the most
// differences first, each with its first example.
func (w *Workload) differed(counters map[string]int64, first map[string]string) []string {
	type row struct {
		op    int
		n     int64
		parts []string
	}
	var rows []row
	for op, fp := range w.s.ops {
		r := row{op: op}
		for _, k := range differences {
			key := fmt.Sprintf("%s:%d", k.key, op)
			if n := counters[key]; n > 0 {
				r.n += n
				r.parts = append(r.parts, fmt.Sprintf("%d %s (first: %s)", n, k.says, first[key]))
			}
		}
		if r.n > 0 {
			r.parts[0] = short(fp) + ": " + r.parts[0]
			rows = append(rows, r)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].n > rows[j].n })
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r.parts, "; ")
	}
	return out
}

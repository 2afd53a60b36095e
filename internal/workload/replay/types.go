package replay

import (
	"time"

	"shootout/internal/hist"
	"shootout/internal/workload"
)

// typeFigures are one kind of session's part of a replay (its user,
// database and program in the capture): the sessions begun and their
// timed statements, for the report's per session type view.
type typeFigures struct {
	sessions int64
	h        *hist.Histogram
}

// figure is the worker's own figures of the kind of session se: a
// histogram is not safe for concurrent use, so each worker keeps its
// own and merges them into the workload's as it closes.
func (wk *worker) figure(se *sess) *typeFigures {
	if wk.types == nil {
		wk.types = make([]typeFigures, len(wk.w.s.types))
	}
	f := &wk.types[se.kind]
	if f.h == nil {
		f.h = hist.New()
	}
	return f
}

// timed counts a timed statement of the session being replayed.
func (wk *worker) timed(took time.Duration) {
	wk.figure(wk.sessions[wk.cur]).h.Record(took)
}

// mergeTypes adds a closing worker's figures to the replay's; the
// worker's are emptied, so a second close adds nothing.
func (w *Workload) mergeTypes(wk *worker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.types == nil {
		w.types = make([]typeFigures, len(w.s.types))
	}
	for i, f := range wk.types {
		if f.h == nil {
			continue
		}
		if w.types[i].h == nil {
			w.types[i].h = hist.New()
		}
		w.types[i].sessions += f.sessions
		w.types[i].h.Merge(f.h)
	}
	wk.types = nil
}

// sessionTypes are the replay's figures per kind of session, every
// kind of the capture in the order it first opened one, those no
// session of which began with no figures.
func (w *Workload) sessionTypes() []workload.SessionType {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]workload.SessionType, len(w.s.types))
	for i, name := range w.s.types {
		out[i].Type = name
		if i < len(w.types) && w.types[i].h != nil {
			out[i].Sessions, out[i].Statements = w.types[i].sessions, w.types[i].h.Snapshot()
		}
	}
	return out
}

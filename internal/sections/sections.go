// Package sections is the registry of the report's workload sections: a
// workload says, in its init, which of the report's own tables its cells
// make beside the common ones, so the report draws them without naming
// any workload, target or protocol. It imports nothing of shootout's, so
// both sides can.
package sections

import (
	"fmt"
	"sync"
)

// Kind is a table the report knows how to draw from cells.
type Kind int

const (
	// Pages is siege's summary per target (ETime, RTime, TRate, Conc, OK,
	// LA, MEM): for workloads whose operations are the pages of a site.
	// Cells run as siege runs (a fixed number of reps per client) get it
	// whatever their workload.
	Pages Kind = iota + 1
	// RowsRead is rows read per second, one row per target, value of
	// RowParam and allocator (which the other tables keep apart).
	RowsRead
	// Statements is the per-statement comparison: each operation's count
	// and p50/p99 per target, × slower than the baseline, the operations
	// ordered by their share of the difference in the whole run's time.
	// For workloads whose operations are statements or fingerprints.
	Statements
)

// Section is a workload's table in the report.
type Section struct {
	Kind Kind
	// Title heads the table in the HTML report (RowsRead).
	Title string
	// Legend says what the columns are (RowsRead).
	Legend string
	// RowParam is the workload parameter whose values are rows of a
	// RowsRead table, and DefaultRow its value in a cell that did not set
	// it, from the target's flavour (a native server's is its protocol).
	RowParam   string
	DefaultRow func(flavor string) string
}

var (
	mu       sync.RWMutex
	registry = map[string]Section{}
)

// Register gives a workload its section; a second for the same workload
// is a programming error.
func Register(workload string, s Section) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[workload]; dup {
		panic(fmt.Sprintf("sections: %s registered twice", workload))
	}
	if s.Kind == RowsRead && (s.RowParam == "" || s.DefaultRow == nil) {
		panic(fmt.Sprintf("sections: %s: a rows-read table needs its row parameter and its default", workload))
	}
	registry[workload] = s
}

// Of is the section a workload registered, if any.
func Of(workload string) (Section, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := registry[workload]
	return s, ok
}

// Is reports whether workload's cells make a table of kind k.
func Is(workload string, k Kind) bool {
	s, ok := Of(workload)
	return ok && s.Kind == k
}

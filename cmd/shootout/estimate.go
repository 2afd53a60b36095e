package main

import (
	"fmt"
	"time"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/run"
)

// What a cell costs besides its measured window, from the result files of
// `make demo` on this project's 2-core VM with nothing else running
// (2026-11-28: 16 oltp_read_write cells of 100,000 rows on InnoDB, MyRocks,
// PostgreSQL and SQLite; the whole demo took 183 s): a cell's wall time
// less its window, load and settle was 0.6-3.4 s, median 2.1 s (starting
// the server, the checks, the space, stopping it); its load and settle
// together ran at 33,000-160,000 rows/s. The figures first taken here came
// from runs beside other sessions' tests (load average 15-66): 13.6 s and
// 14,000 rows/s, which put the demo at 7 min 46 s. So a cell is allowed
// its window, a fixed start-and-stop and its dataset's rows at the quiet
// machine's rate: a busy machine, a modelled or capped disk take longer,
// and the estimate is a floor for those. A cluster whose target says how
// long its nodes take to start (Galera's join one by one, about 20 s for
// three) is allowed that instead of the fixed start; its load, which every
// node applies, is still counted at the single server's rate.
const (
	cellStartStop = 2500 * time.Millisecond
	loadRowsPerS  = 50_000
)

// estimate is the run's expected wall time, as the summary says it.
func estimate(res *plan.Resolved) string {
	var total time.Duration
	untimed := 0
	for _, c := range res.Cells {
		d, err := time.ParseDuration(c.Duration)
		if err != nil || d <= 0 || run.SelfEnding(res, c) {
			d, untimed = 0, untimed+1
		}
		// a cluster's nodes join one by one: its target says how long
		total += max(d, 0) + max(cellStartStop, run.StartCost(res, c)) + loadTime(res, c)
	}
	s := "about " + humanDuration(total)
	if a := res.AutoRepeat; a != nil {
		s = fmt.Sprintf("about %s to %s (%d to %d repeats of each cell)", humanDuration(total*time.Duration(a.Min)), humanDuration(total*time.Duration(a.Max)), a.Min, a.Max)
	}
	if untimed > 0 {
		s += fmt.Sprintf(", besides the windows of %s that end when their work is done", plural(untimed, "cell"))
	}
	return s
}

// loadTime is the time to load and settle the cell's dataset.
func loadTime(res *plan.Resolved, c result.Cell) time.Duration {
	return time.Duration(run.DatasetRows(res, c)) * time.Second / loadRowsPerS
}

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
// and the estimate is a floor for those.
const (
	cellStartStop = 2500 * time.Millisecond
	loadRowsPerS  = 50_000
)

// estimate is the run's expected wall time, as the summary says it.
func estimate(res *plan.Resolved) string {
	rows := map[string]int64{}
	var total time.Duration
	untimed := 0
	for _, c := range res.Cells {
		d, err := time.ParseDuration(c.Duration)
		if err != nil || d <= 0 || selfEnding(c) {
			d, untimed = 0, untimed+1
		}
		total += max(d, 0) + cellStartStop + loadTime(c, res.Seed, rows)
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

// selfEnding caches run.SelfEnding by a cell's workload and parameters:
// a workload's factory may read a file (the dump's), and the dry run asks
// for every cell.
var selfEnding = func() func(c result.Cell) bool {
	known := map[string]bool{}
	return func(c result.Cell) bool {
		key := fmt.Sprint(c.Workload, c.Params)
		v, ok := known[key]
		if !ok {
			v = run.SelfEnding(c.Workload, c.Params)
			known[key] = v
		}
		return v
	}
}()

// loadTime is the time to load and settle the cell's dataset; rows caches
// a dataset's row count by workload, parameters and dataset.
func loadTime(c result.Cell, seed int64, rows map[string]int64) time.Duration {
	key := fmt.Sprint(c.Workload, c.Params, c.Dataset)
	n, ok := rows[key]
	if !ok {
		n = run.DatasetRows(c.Workload, c.Params, c.Dataset, seed)
		rows[key] = n
	}
	return time.Duration(n) * time.Second / loadRowsPerS
}

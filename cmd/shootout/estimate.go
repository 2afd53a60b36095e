package main

import (
	"fmt"
	"time"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/workload"
)

// What a cell costs besides its measured window, measured on this project's
// 2-core VM from the result files of eight oltp_read_write cells of 100,000
// rows (InnoDB, MyRocks, PostgreSQL, SQLite, two runs each, 2026-11-27):
// a cell's wall time (started to ended) less its window, load and settle
// was 1-24 s, median 13.6 s (starting the server, the checks, measuring
// the space, stopping it); its load and settle together wrote 7,800 to
// 38,000 rows/s, median 14,000. So a cell is allowed its window, a fixed
// start-and-stop and its dataset's rows at that rate. A modelled or capped
// disk loads slower: the estimate is a floor for those.
const (
	cellStartStop = 14 * time.Second
	loadRowsPerS  = 14_000
)

// estimate is the run's expected wall time, as the summary says it.
func estimate(res *plan.Resolved) string {
	rows := map[string]int64{}
	var total time.Duration
	untimed := 0
	for _, c := range res.Cells {
		d, err := time.ParseDuration(c.Duration)
		if err != nil || d <= 0 {
			untimed++
		}
		total += max(d, 0) + cellStartStop + loadTime(c, res.Seed, rows)
	}
	s := "about " + humanDuration(total)
	if a := res.AutoRepeat; a != nil {
		s = fmt.Sprintf("about %s to %s (%d to %d repeats of each cell)", humanDuration(total*time.Duration(a.Min)), humanDuration(total*time.Duration(a.Max)), a.Min, a.Max)
	}
	if untimed > 0 {
		s += fmt.Sprintf(", besides the windows of %s bounded by a count of operations", plural(untimed, "cell"))
	}
	return s
}

// loadTime is the time to load and settle the cell's dataset; rows caches
// a dataset's row count by workload, parameters and dataset.
func loadTime(c result.Cell, seed int64, rows map[string]int64) time.Duration {
	key := fmt.Sprint(c.Workload, c.Params, c.Dataset)
	n, ok := rows[key]
	if !ok {
		if w, err := workload.New(c.Workload, c.Params); err == nil {
			if ds, err := w.Dataset(c.Dataset, seed); err == nil {
				n = max(ds.LoadRows, ds.Rows)
			}
		}
		rows[key] = n
	}
	return time.Duration(n) * time.Second / loadRowsPerS
}

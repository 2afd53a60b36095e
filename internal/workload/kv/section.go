package kv

import (
	"shootout/internal/proto"
	"shootout/internal/sections"
)

// kv's cells make seed 003's table in the report: rows read per second,
// a row per target, access path and allocator.
func init() {
	sections.Register("kv", sections.Section{Kind: sections.RowsRead, RowParam: "path", DefaultRow: defaultPath,
		Title: "Rows read per second (seed 003)", Legend: legend})
}

// defaultPath is the path a cell that named none read by: a native
// server records its protocol as its flavour, a SQL server its dialect's.
func defaultPath(flavor string) string {
	switch proto.Name(flavor) {
	case proto.Redis, proto.Tarantool, proto.Memcached:
		return nativePaths[0]
	}
	return sqlPaths[0]
}

const legend = "rows/s = rows read per second over the run; × slower = the baseline's rows/s (its first row at the same clients) ÷ this row's; " +
	"p50/p99 = the time of one operation: a read, or a batch of reads on path batch; CPU µs/row = CPU seconds of the server's processes, and of shootout's, " +
	"per row read in the window (SQLite runs inside shootout: its server CPU is shootout's; with the default placement shootout has a core of its own, " +
	"and when the server is the bottleneck Go's scheduler spins there, which counts as client CPU); in memory = the server read under 1 MiB from storage in the window " +
	"(its /proc/PID/io read_bytes, and its cgroup's read IOs under a disk cap); NO = what it read, and the note under the tables what the page cache held"

// Package result is the versioned result file of one cell: written
// atomically as soon as the cell ends, read back for resume and reports.
package result

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"shootout/internal/hist"
)

// Schema is the version of the cell file layout, documented in
// docs/results.md. Bump it when a field changes meaning.
const Schema = "shootout.cell/2"

// Cell is one point of the matrix.
type Cell struct {
	ID     string `json:"id"`
	Target string `json:"target"`
	// Variant is the cell's values on its target's own axes (a setting
	// the plan gave a list, --link), "writers=all link=1ms": the report
	// names the target so, one row per variant.
	Variant    string            `json:"variant,omitempty"`
	Workload   string            `json:"workload"`
	Params     map[string]string `json:"params,omitempty"`
	Dataset    string            `json:"dataset"`
	Clients    int               `json:"clients"`
	Conditions Conditions        `json:"conditions"`
	Repeat     int               `json:"repeat"`
	Duration   string            `json:"duration,omitempty"`
	Ops        int64             `json:"ops,omitempty"`
	// Reps is each client's operations (siege -r), when the run is
	// bounded so
	Reps int64   `json:"reps,omitempty"`
	Rate float64 `json:"rate,omitempty"`
}

// Conditions are everything besides the cell's name fields that can change
// its figures: the machine limits and neighbours it asked for, how it was
// measured, and what served it. Two cells measured the same thing only when
// their conditions are equal (Cell.ConditionDiff); --resume reruns a cell
// whose conditions changed and compare refuses to pair such cells.
type Conditions struct {
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	IOPS        int   `json:"iops,omitempty"`
	BPS         int64 `json:"bps,omitempty"`
	// Disk is the modelled device the data lived on (--disk, canonical:
	// model and changed parameters); empty for the raw disk.
	Disk string `json:"disk,omitempty"`
	CPUs string `json:"cpus,omitempty"` // --cpus as given; empty for the default placement
	// Link is --link, the link between a cluster's nodes (DELAY[,RATE]).
	Link      string `json:"link,omitempty"`
	Neighbour string `json:"neighbour"`
	// NeighbourFileBytes is the size of the file fio neighbours use (only
	// with a neighbour).
	NeighbourFileBytes int64 `json:"neighbour_file_bytes,omitempty"`
	// Trim is the fraction of the measured run dropped at each end before
	// operation times are summarised (the warm-up and the wind-down).
	Trim float64 `json:"trim"`
	// Interval is the interval line's period, which also sets the samples
	// of the time series.
	Interval string `json:"interval,omitempty"`
	// Seed generates the dataset and the clients' random choices.
	Seed       int64 `json:"seed,omitempty"`
	MaxRetries int   `json:"max_retries"`
	// Agents is how many agent processes ran the clients (0: shootout's
	// own process).
	Agents int `json:"agents,omitempty"`
	// AgentCPU is each agent's CPU quota in cores (--agent-cpu), 0 for
	// none or no agents.
	AgentCPU float64 `json:"agent_cpu,omitempty"`
	// Settings are the plan's server settings for this cell's target.
	Settings map[string]string `json:"settings,omitempty"`
	// Build is the server program a managed target starts, with its
	// version line; Transport how the clients reach it.
	Build     string `json:"build,omitempty"`
	Transport string `json:"transport,omitempty"`
	// App is the application the clients went through (--app redmine):
	// the operation time is then its HTTP time; empty for SQL clients.
	App string `json:"app,omitempty"`
	// WorkloadVersion names the workload's definition where it changed
	// in ways that change the figures (workload.Versioned).
	WorkloadVersion string `json:"workload_version,omitempty"`
	// Allocator is the memory allocator the plan put under the server
	// (--allocator), "" for the server's own.
	Allocator string `json:"allocator,omitempty"`
}

// Label is the seeds' row label: clients/neighbour, e.g. "4/x2", with the
// application in the loop after it ("4/x2 redmine").
func (c Cell) Label() string {
	l := fmt.Sprintf("%d/%s", c.Clients, c.Conditions.Neighbour)
	if c.Conditions.App != "" {
		l += " " + c.Conditions.App
	}
	return l
}

// Target is what ran: its name, engine, version and every setting.
type Target struct {
	Name    string `json:"name"`
	Flavor  string `json:"flavor"`
	Engine  string `json:"engine,omitempty"`
	Version string `json:"version"`
	// Embedded: the database ran inside shootout's own process (no
	// network hop; its CPU is the client's too)
	Embedded bool              `json:"embedded,omitempty"`
	Applied  map[string]string `json:"applied,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
	// App is the application server in the loop (--app), with its version
	// and workers; empty when the clients spoke SQL
	App string `json:"app,omitempty"`
}

// Op is one operation's trimmed latency and error count.
type Op struct {
	hist.Snapshot
	Errors      int64         `json:"errors"`
	TrimmedHead int64         `json:"trimmed_head"`
	TrimmedTail int64         `json:"trimmed_tail"`
	Untrimmed   hist.Snapshot `json:"untrimmed"`
}

// Throughput is over the whole measured run, as sysbench computes it.
type Throughput struct {
	Seconds float64 `json:"seconds"`
	// StartedAt is the wall-clock moment the driven run began: with
	// Seconds it places the window in time, so a tool outside shootout
	// (make bench) can read a server's counters over the same window.
	StartedAt  time.Time        `json:"started_at,omitempty"`
	Events     int64            `json:"events"`
	TPS        float64          `json:"tps"`
	QPS        float64          `json:"qps"`
	Reads      int64            `json:"reads"`
	Writes     int64            `json:"writes"`
	Other      int64            `json:"other"`
	Errors     int64            `json:"errors"`
	ErrorsBy   map[string]int64 `json:"errors_by_class,omitempty"`
	Retries    int64            `json:"retries"`
	GivenUp    int64            `json:"given_up"`
	Reconnects int64            `json:"reconnects"`
	Latency    hist.Snapshot    `json:"latency"`
	// Fairness is sysbench's "threads fairness".
	EventsAvg    float64 `json:"events_avg"`
	EventsStddev float64 `json:"events_stddev"`
	TimeAvgS     float64 `json:"time_avg_s"`
	TimeStddevS  float64 `json:"time_stddev_s"`
	// LongestPauseS is the longest stretch in which clients waited and no
	// operation finished (to the driver's tick: 1/100 of a short run, 1 s
	// of a long one), from PauseFromS after the start; 0: none.
	LongestPauseS float64 `json:"longest_pause_s,omitempty"`
	PauseFromS    float64 `json:"pause_from_s,omitempty"`
}

// Host is the share of all CPUs' time during the run that went to the
// hypervisor (steal, from /proc/stat) and to processes outside
// shootout's tree (other processes); nil in results from before it was
// recorded. A busy host makes a cell slower than the machine's own.
type Host struct {
	StealShare float64 `json:"steal_share"`
	// OtherProcessesShare is nil for an external server, whose own CPU
	// would count: its processes are not shootout's
	OtherProcessesShare *float64 `json:"other_processes_share,omitempty"`
}

// Busy is the share others took, what is known of it.
func (h *Host) Busy() float64 {
	if h == nil {
		return 0
	}
	b := h.StealShare
	if h.OtherProcessesShare != nil {
		b += *h.OtherProcessesShare
	}
	return b
}

// Server is what the server process tree cost during the run.
type Server struct {
	Measured bool   `json:"measured"`
	Note     string `json:"note,omitempty"`
	// CPUSeconds and CPUSecondsPerOp are null when the counter's unit
	// (CPUResolutionS) was as long as the window: a 10-ms window read in
	// /proc's 10-ms ticks says 0 or 10 ms whatever was used.
	CPUSeconds      *float64 `json:"cpu_s"`
	CPUSecondsPerOp *float64 `json:"cpu_s_per_op"`
	// CPUSource is the counter: "cgroup cpuacct.usage" (ns), "cgroup
	// cpu.stat usage_usec" (µs), or "/proc/PID/stat" (10-ms ticks per
	// process, when the server has no cgroup); CPUResolutionS its unit,
	// over all the server's processes.
	CPUSource       string  `json:"cpu_source,omitempty"`
	CPUResolutionS  float64 `json:"cpu_resolution_s,omitempty"`
	ReadBytes       int64   `json:"read_bytes"`
	WriteBytes      int64   `json:"write_bytes"`
	ReadBytesPerOp  float64 `json:"read_bytes_per_op"`
	WriteBytesPerOp float64 `json:"write_bytes_per_op"`
	// BytesSource says where ReadBytes and WriteBytes come from: "device
	// NAME (major:minor)", the disk that holds the data directory, or
	// "process", the server's /proc/PID/io when there is no device.
	BytesSource string `json:"bytes_source,omitempty"`
	// ProcessReadBytes and ProcessWriteBytes are the server process
	// tree's /proc/PID/io counters, kept beside the device's: the kernel
	// charges them when pages are dirtied, which with large folios can be
	// far more than reaches the disk.
	ProcessReadBytes       int64   `json:"process_read_bytes"`
	ProcessWriteBytes      int64   `json:"process_write_bytes"`
	ProcessReadBytesPerOp  float64 `json:"process_read_bytes_per_op"`
	ProcessWriteBytesPerOp float64 `json:"process_write_bytes_per_op"`
	PeakRSSBytes           int64   `json:"peak_rss_bytes"`
	MaxLoadAvg             float64 `json:"max_load_avg"`
	// ContextSwitches of the server's threads during the run.
	ContextSwitches      int64   `json:"context_switches"`
	ContextSwitchesPerOp float64 `json:"context_switches_per_op"`
	// IOOpsPerOp is disk operations per operation as the cgroup counted
	// them (reads and writes; 0 without a blkio group).
	IOOpsPerOp float64 `json:"io_ops_per_op,omitempty"`
	// WriteAmplification is WriteBytes divided by the bytes of row data the
	// workload's committed operations changed (its "logical_bytes"
	// counter); nil when the workload does not count them or changed none.
	WriteAmplification *float64 `json:"write_amplification,omitempty"`
	// WriteBackS is how long the write-back at the end of the window took
	// (InnoDB's dirty pages, a PostgreSQL checkpoint, MyRocks' memtable
	// flush, SQLite's WAL checkpoint): its bytes are in WriteBytes, so
	// engines that defer writes are counted like those that do not.
	WriteBackS float64 `json:"writeback_s"`
	// WriteBackFinished is false when the write-back gave up at its bound
	// (or the cell failed in it) with data still dirty, whose bytes and
	// IOs are then missing from every figure; nil when nothing was
	// written back (an external server, a stalled run, older files).
	WriteBackFinished *bool `json:"writeback_finished,omitempty"`
	// WriteBackLeftBytes is what an unfinished write-back left dirty, -1
	// when the engine cannot say; WriteBackLeft says it in the engine's
	// own terms ("2624 InnoDB dirty pages").
	WriteBackLeftBytes int64  `json:"writeback_left_bytes,omitempty"`
	WriteBackLeft      string `json:"writeback_left,omitempty"`
	// Host is what this machine's CPUs gave to others during the run.
	Host *Host `json:"host,omitempty"`
	// InMemory is the proof, for a workload that must read from memory
	// (kv), that the window read nothing from disk; nil for the others.
	InMemory *InMemory `json:"in_memory,omitempty"`
	// EngineWrites splits what the server wrote by its own counters;
	// nil when the server keeps none shootout knows.
	EngineWrites *EngineWrites `json:"engine_writes,omitempty"`
}

// CPU is the server's CPU seconds, false when they were not measured or
// not resolved.
func (s Server) CPU() (float64, bool) {
	if !s.Measured || s.CPUSeconds == nil {
		return 0, false
	}
	return *s.CPUSeconds, true
}

// CPUPerOp is the server's CPU seconds per operation, false when they were
// not measured or not resolved.
func (s Server) CPUPerOp() (float64, bool) {
	if !s.Measured || s.CPUSecondsPerOp == nil {
		return 0, false
	}
	return *s.CPUSecondsPerOp, true
}

// InMemory is what the kernel says the server read from storage during
// the measured window.
type InMemory struct {
	OK bool `json:"ok"`
	// ReadBytes is the server process tree's read_bytes (/proc/PID/io):
	// what it made the kernel fetch from storage.
	ReadBytes int64 `json:"read_bytes"`
	// CgroupReadIOs are the read IOs its cgroup's disk controller
	// counted; -1 when the cell had none (no disk cap).
	CgroupReadIOs int64 `json:"cgroup_read_ios"`
	// FilesBytes are the sizes of the server's files; CachedAtStartBytes
	// and CachedAtEndBytes how much of them the page cache held when the
	// window started and ended (mincore); AvailableBytes the least
	// MemAvailable of the two moments. All 0 when shootout cannot see
	// the server's files.
	FilesBytes         int64 `json:"files_bytes,omitempty"`
	CachedAtStartBytes int64 `json:"cached_at_start_bytes,omitempty"`
	CachedAtEndBytes   int64 `json:"cached_at_end_bytes,omitempty"`
	AvailableBytes     int64 `json:"available_bytes,omitempty"`
	// PinnedBytes are the server's files that shootout locked in the
	// page cache (mlock) for the window: those the cache held at least
	// half of when it started. 0 under a --memory cap, or when locking
	// them would have left too little memory (then limits.notes says so).
	PinnedBytes int64 `json:"pinned_bytes"`
	// ControlDroppedBytes is what the page cache let go, over the window,
	// of a file shootout cached at its start and did not touch: 0 on a
	// machine that keeps what it caches; -1 when not measured.
	ControlDroppedBytes int64  `json:"control_dropped_bytes"`
	Note                string `json:"note,omitempty"`
}

// EngineWrites is, per operation of the driven run, what the server's own
// counters say it wrote to its log (redo, WAL) and to its data files.
type EngineWrites struct {
	LogBytesPerOp  float64 `json:"log_bytes_per_op"`
	DataBytesPerOp float64 `json:"data_bytes_per_op"`
	// FullPageImagesPerOp: PostgreSQL pages copied whole into the WAL.
	FullPageImagesPerOp float64 `json:"full_page_images_per_op,omitempty"`
	Source              string  `json:"source"`
}

// Space is the data directory's size after the run, and after settling.
type Space struct {
	Bytes        int64 `json:"bytes"`
	SettledBytes int64 `json:"settled_bytes"`
	// TableBytes is what the server reports for the workload's tables and
	// their indexes after settling: the seed's "space", without the
	// server's logs and preallocated files that the data directory holds.
	TableBytes int64  `json:"table_bytes"`
	Note       string `json:"note,omitempty"`
}

// Load is how the dataset got there.
type Load struct {
	Reused   bool             `json:"reused"`
	Seconds  float64          `json:"seconds"`
	Rows     int64            `json:"rows"`
	RowsPerS float64          `json:"rows_per_s"`
	Tables   map[string]int64 `json:"tables,omitempty"`
	// SettleS is the flush/compaction after the load, before the run.
	SettleS float64 `json:"settle_s,omitempty"`
	// TableRowsPerS is each table's rows over the time spent inserting them.
	TableRowsPerS map[string]float64 `json:"table_rows_per_s,omitempty"`
	IndexS        float64            `json:"index_s"`
	SchemaDDL     int                `json:"schema_statements"`
	// Note says what settling could not finish (InnoDB pages still dirty
	// when its wait ran out).
	Note string `json:"note,omitempty"`
	// Notes say what the load changed to fit the engine (a dump's foreign
	// keys or FULLTEXT indexes an engine cannot have).
	Notes []string `json:"notes,omitempty"`
}

// Client is what shootout itself cost, so readers can see it was not the
// bottleneck.
type Client struct {
	CPUSeconds      float64 `json:"cpu_s"`
	CPUSecondsPerOp float64 `json:"cpu_s_per_op"`
	// DiskModelCPUSeconds is what the disk model (--disk), which serves
	// the server's disk from inside shootout's process, used of its CPU
	// during the run: taken out of CPUSeconds, since it is the disk's.
	DiskModelCPUSeconds float64 `json:"disk_model_cpu_s,omitempty"`
	// Agents are the agent processes that ran the clients (--agents), in
	// order; their CPU is in CPUSeconds.
	Agents []Agent `json:"agents,omitempty"`
	// Saturated: an agent was saturated (docs/results.md), so the cell
	// measured its client as much as its server.
	Saturated bool `json:"saturated,omitempty"`
}

// Agent is one agent process's share of a cell.
type Agent struct {
	Clients int `json:"clients"`
	// ClockOffsetMs is the agent's clock minus shootout's.
	ClockOffsetMs float64 `json:"clock_offset_ms"`
	// CPUCores is its CPU over its run in cores, of CPUs it could use.
	CPUCores float64 `json:"cpu_cores"`
	CPUs     int     `json:"cpus"`
	// CPUWaitS is the time its threads were runnable waiting for a CPU
	// (a run queue, its quota), added up; CPUShare its threads' time on
	// a CPU and waiting for one over its clients' time (clients × run).
	CPUWaitS float64 `json:"cpu_wait_s"`
	CPUShare float64 `json:"cpu_share"`
	// ThrottledS is how long its quota (--agent-cpu) held it during the
	// run, its cgroup's count.
	ThrottledS    float64 `json:"throttled_s,omitempty"`
	ScheduleLagMs float64 `json:"schedule_lag_ms"`
	Saturated     bool    `json:"saturated"`
	// SaturatedBy says which rule marked it, in words.
	SaturatedBy []string `json:"saturated_by,omitempty"`
	Events      int64    `json:"events"`
	// Cpuset is the CPUs of the agent's own cgroup ("" when it had none:
	// it ran where shootout runs).
	Cpuset string `json:"cpuset,omitempty"`
}

// Limits is what was applied and the evidence for it.
type Limits struct {
	Applied bool `json:"applied"`
	// Cgroup is the cgroup version the limits went through, "v1" or "v2"
	// (empty when no group was made): their files have other names.
	Cgroup string   `json:"cgroup,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	// Settings are the cgroup files written (memory.limit_in_bytes,
	// blkio.throttle.*_iops_device); Evidence what the kernel counted.
	Settings map[string]string `json:"settings,omitempty"`
	Evidence map[string]string `json:"evidence,omitempty"`
}

// Invariants is the workload's check after the run.
type Invariants struct {
	OK       bool     `json:"ok"`
	Checked  []string `json:"checked,omitempty"`
	Failures []string `json:"failures,omitempty"`
	// Drift: where the work departed from the workload's definition
	// (workload.Invariants.Drift).
	Drift []string `json:"drift,omitempty"`
	// Plans: the target's EXPLAIN per operation (workload.Invariants.Plans).
	Plans map[string]string `json:"plans,omitempty"`
	// SessionTypes: figures per kind of session
	// (workload.Invariants.SessionTypes).
	SessionTypes []SessionType `json:"session_types,omitempty"`
}

// SessionType is one kind of session's part of a cell
// (workload.SessionType): the sessions begun, and their timed
// statements' count, sum and percentiles over the whole run.
type SessionType struct {
	Type       string        `json:"type"`
	Sessions   int64         `json:"sessions"`
	Statements hist.Snapshot `json:"statements"`
}

// App is what the application server in the loop cost per operation,
// beside the database server's figures in Server: where an operation's
// time went.
type App struct {
	Name            string  `json:"name"`
	CPUSeconds      float64 `json:"cpu_s"`
	CPUSecondsPerOp float64 `json:"cpu_s_per_op"`
	PeakRSSBytes    int64   `json:"peak_rss_bytes"`
	// DBShare is the database server's CPU over the two servers' CPU
	DBShare float64 `json:"db_share"`
	// StatementsPerRequest is what the database counted per HTTP request
	// (MariaDB's Questions; 0 where the server has no such counter)
	StatementsPerRequest float64 `json:"statements_per_request,omitempty"`
	Requests             int64   `json:"http_requests"`
	Errors4xx            int64   `json:"http_4xx"`
	Errors5xx            int64   `json:"http_5xx"`
}

// Statement is one statement's timings over a cell, as its clients saw
// them (from send to last row read), retried attempts included.
type Statement struct {
	Name    string  `json:"name"`
	Query   string  `json:"query"`
	Calls   int64   `json:"calls"`
	TotalMs float64 `json:"total_ms"`
	MeanMs  float64 `json:"mean_ms"`
	MaxMs   float64 `json:"max_ms"`
}

// Interval is one interval line's figures.
type Interval struct {
	AtS      float64 `json:"at_s"`
	TPS      float64 `json:"tps"`
	QPS      float64 `json:"qps"`
	ReadsPS  float64 `json:"reads_ps"`
	WritesPS float64 `json:"writes_ps"`
	OtherPS  float64 `json:"other_ps"`
	P95Ms    float64 `json:"p95_ms"`
	ErrPS    float64 `json:"err_ps"`
	ReconnPS float64 `json:"reconn_ps"`
}

// File is the whole cell file.
type File struct {
	Schema     string           `json:"schema"`
	Cell       Cell             `json:"cell"`
	Target     Target           `json:"target"`
	Started    time.Time        `json:"started"`
	Ended      time.Time        `json:"ended"`
	Status     string           `json:"status"` // "ok" or "failed: <reason>"
	Ops        map[string]Op    `json:"ops,omitempty"`
	Throughput Throughput       `json:"throughput"`
	Intervals  []Interval       `json:"intervals,omitempty"`
	Server     Server           `json:"server"`
	Space      Space            `json:"space"`
	Load       Load             `json:"load"`
	Invariants Invariants       `json:"invariants"`
	Client     Client           `json:"client"`
	Limits     Limits           `json:"limits"`
	Counters   map[string]int64 `json:"counters,omitempty"`
	// App is the application server's share of the work (--app cells)
	App *App `json:"app,omitempty"`
	// Statements are the statements that took the most client time, for
	// workloads that time theirs (slow-query capture), largest first.
	Statements []Statement `json:"statements,omitempty"`
	// Nodes are a cluster's nodes over the measured window, each with its
	// own counters (docs/results.md); nil for a single server.
	Nodes []Node `json:"nodes,omitempty"`
	// RepeatStop, on the last repeat of a cell run with --repeat auto,
	// says why no further repeat ran.
	RepeatStop string `json:"repeat_stop,omitempty"`
}

// Node is one node of a cluster over the measured window: its process's
// CPU and the counters it keeps of its part in the cluster (Galera's
// wsrep_* status, docs/results.md says which are differences and which
// averages).
type Node struct {
	Name       string  `json:"name"`
	Address    string  `json:"address"`
	CPUSeconds float64 `json:"cpu_s"`
	Deadlocks  float64 `json:"deadlocks"`
	// DiedAt is when the node died (a node killed mid-run: the cluster
	// went on without it), DiedAfterS the same from the run's start,
	// StallS the clients' longest pause that lasted past that moment.
	DiedAt     *time.Time `json:"died_at,omitempty"`
	DiedAfterS float64    `json:"died_after_s,omitempty"`
	StallS     float64    `json:"stall_s,omitempty"`
	// CutAt is when the cell's fault (a cluster target's cut_link) cut
	// the node's links to the other nodes, RestoredAt when it gave them
	// back (nil: the run ended first) and RejoinedAt when the node was in
	// the primary component again; each also in seconds from the run's
	// start. StallS is then the clients' longest pause that overlapped
	// the cut.
	CutAt          *time.Time `json:"cut_at,omitempty"`
	CutAfterS      float64    `json:"cut_after_s,omitempty"`
	RestoredAt     *time.Time `json:"restored_at,omitempty"`
	RestoredAfterS float64    `json:"restored_after_s,omitempty"`
	RejoinedAt     *time.Time `json:"rejoined_at,omitempty"`
	RejoinedAfterS float64    `json:"rejoined_after_s,omitempty"`
	// NonPrimaryS is how long, from a cut on, the node said it was outside
	// the primary component or not ready (Galera's wsrep_cluster_status,
	// wsrep_ready, read every 0.1 s): it refused its clients' queries.
	NonPrimaryS float64            `json:"non_primary_s,omitempty"`
	Counters    map[string]float64 `json:"counters,omitempty"`
	// Levels name the counters that are levels or averages (a lag, a
	// queue's mean) rather than counts over the window.
	Levels []string `json:"levels,omitempty"`
	// Unread is why the node's counters could not be read at the end of
	// the run (they are absent then).
	Unread string `json:"unread,omitempty"`
	// Link is what the node sent the other nodes through the relay of
	// --link over the window, drops included.
	Link *NodeLink `json:"link,omitempty"`
	// Limits are the node's own cgroup (a cluster under --memory, --cpus,
	// --iops: each node under the limits one server gets): the files
	// written and what the kernel counted since the node started.
	Limits *Limits `json:"limits,omitempty"`
	// Samples are the node's figures read at every --interval of the
	// run, each since the window began (the report differences them).
	Samples []NodeSample `json:"samples,omitempty"`
	// Joined is how the node came to hold the cluster's state at its
	// start, as its own log says (Galera: a new cluster, a copy of the
	// first node's data directory, or a state transfer).
	Joined string `json:"joined,omitempty"`
}

// NodeSample is one reading of a node's figures in the run: AtS seconds
// after the window began, CPUSeconds and Counters since then, as the
// node's entry has them at the end.
type NodeSample struct {
	AtS        float64            `json:"at_s"`
	CPUSeconds float64            `json:"cpu_s"`
	Counters   map[string]float64 `json:"counters,omitempty"`
}

// NodeLink counts the packets a node sent through --link's relay.
type NodeLink struct {
	Packets int64 `json:"packets"`
	Bytes   int64 `json:"bytes"`
	// DroppedQueue would have waited past the link's queue (50 ms), as a
	// router drops; DroppedBehind found the relay itself too far behind.
	DroppedQueue  int64 `json:"dropped_queue"`
	DroppedBehind int64 `json:"dropped_behind"`
}

// OK is true when the cell ran to its end and its invariants held.
func (f *File) OK() bool { return f.Status == "ok" }

// Path is where a cell's file lives under a results directory.
func Path(dir, id string) string { return filepath.Join(dir, "cells", id+".json") }

// Write stores f atomically: a reader or a crash sees the old file or the
// new one, never half of one.
func Write(dir string, f *File) error {
	f.Schema = Schema
	path := Path(dir, f.Cell.ID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Read loads one cell file.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !strings.HasPrefix(f.Schema, "shootout.cell/") {
		return nil, fmt.Errorf("%s: not a shootout cell file (schema %q)", path, f.Schema)
	}
	if f.Target.Flavor == "sqlite" || f.Cell.Target == "sqlite" {
		// files written before Target.Embedded: SQLite was the one
		// embedded database, and the report tells it from the field
		f.Target.Embedded = true
	}
	return &f, nil
}

// ReadDir loads every cell of a results directory, sorted by cell id.
func ReadDir(dir string) ([]*File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "cells", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("results directory %s: %w", dir, err)
		}
		return nil, fmt.Errorf("results directory %s has no cells/*.json: is it the --out of a shootout run?", dir)
	}
	sort.Strings(paths)
	var out []*File
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

package target

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"shootout/internal/dialect"
	"shootout/internal/units"
)

// A cell's memory budget (--memory) is a cgroup cap that includes the page
// cache, so every byte a server allocates in any phase — the load, the
// index build after it, the settle, the run with all its clients — has to
// come out of it. Left at their defaults, the servers' other buffers do not
// fit a small VM: MyRocks' index build merges with a 1G combine buffer and
// 64M sort buffers, its memtables may hold 2×64M per column family, Aria
// and MyISAM build indexes with 256M and 128M sort buffers, and 50 clients
// of MariaDB may each take 3M. SizeMemory shares the budget out so that the
// phase that needs the most still fits, and says where each part went.
// docs/sizing.md explains the rule engine by engine.

// MemoryPart is one share of the budget.
type MemoryPart struct {
	Name  string
	Bytes int64
	// Unknown: a given setting shootout could not read, so neither its
	// size nor the page cache's is known
	Unknown bool
}

// MemoryPlan is how one server's budget is shared out.
type MemoryPlan struct {
	// Engine is the rule's engine ("innodb", "postgres", "redis" …)
	Engine   string
	Budget   int64
	Clients  int
	Settings map[string]string // the server's settings that carry the plan
	// Parts add up to at most Budget; the largest phase-dependent share
	// (connections in the run, or the index build's buffers) is the one
	// counted.
	Parts []MemoryPart
}

// String is the plan in one line, for the log and the cell's notes.
func (p MemoryPlan) String() string {
	var parts []string
	for _, part := range p.Parts {
		if part.Unknown {
			parts = append(parts, part.Name+" unknown")
			continue
		}
		if part.Bytes < 0 { // given settings past the budget
			parts = append(parts, part.Name+" none: the budget is overrun by "+HumanBytes(-part.Bytes))
			continue
		}
		parts = append(parts, part.Name+" "+HumanBytes(part.Bytes))
	}
	return fmt.Sprintf("memory %s shared out: %s", HumanBytes(p.Budget), strings.Join(parts, ", "))
}

// WithGiven is the plan as the server runs it when the study's settings
// give some of its parts themselves (seed 004's 1G caches): those parts
// take the given size, marked, and the page cache is what is left, so the
// log and the cell's notes never show a share the server was not given.
// A given value read as the server reads it (givenBytes); one that cannot
// be read shows no size, and the page cache none either.
func (p MemoryPlan) WithGiven(settings map[string]string) MemoryPlan {
	out := p
	out.Parts = nil
	var rest int64
	pageCache, unknown := -1, false
	for _, part := range p.Parts {
		v, given := settings[part.Name]
		switch {
		case part.Name == "page cache":
			pageCache = len(out.Parts)
		case given:
			if n, ok := givenBytes(p.Engine, v); ok {
				part.Bytes, part.Name = n, part.Name+" (given)"
			} else {
				part.Unknown, part.Name, unknown = true, part.Name+" (given: "+v+")", true
			}
		}
		if part.Name != "page cache" {
			rest += part.Bytes
		}
		out.Parts = append(out.Parts, part)
	}
	if pageCache >= 0 {
		out.Parts[pageCache].Bytes = p.Budget - rest
		out.Parts[pageCache].Unknown = unknown
	}
	return out
}

var (
	mariadbSize  = regexp.MustCompile(`^([0-9]+)([KkMmGgTt]?)$`)
	postgresSize = regexp.MustCompile(`^([0-9]+)\s*(kB|MB|GB|TB)?$`)
)

// givenBytes reads a cache size as the engine's server reads it: MariaDB
// a byte count with an optional K, M, G or T (either case); PostgreSQL a
// count of shared_buffers' 8 kB blocks, or kB, MB, GB or TB; a native
// server's as units.ParseBytes reads sizes.
func givenBytes(engine, v string) (int64, bool) {
	v = strings.TrimSpace(v)
	scale := map[string]int64{"": 1, "k": kib, "m": mib, "g": 1 << 30, "t": 1 << 40}
	switch {
	case engine == "postgres":
		m := postgresSize.FindStringSubmatch(v)
		if m == nil {
			return 0, false
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if m[2] == "" {
			return n * 8 * kib, true
		}
		return n * scale[strings.ToLower(m[2][:1])], true
	case mariadbEngines[engine] != "":
		m := mariadbSize.FindStringSubmatch(v)
		if m == nil {
			return 0, false
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n * scale[strings.ToLower(m[2])], true
	}
	n, err := units.ParseBytes(v)
	return n, err == nil
}

// Measured and documented sizes the rule starts from (MariaDB 10.11,
// PostgreSQL 15, Debian 12).
const (
	mib = int64(1) << 20
	kib = int64(1) << 10

	// mariadbd with small caches, before any table is used: 70 MB RSS
	// with InnoDB, 79 MB with the RocksDB plugin loaded, plus the other
	// engines' small caches as they fill with the system tables.
	mariadbServer = 96 * mib
	// each connection of MariaDB at its defaults: thread stack 292K, two
	// net buffers, and the sort (2M), join (256K), read (128K) and
	// random-read (256K) buffers a query of the oltp or redmine mix can
	// allocate at once
	mariadbConnOthers = 292*kib + 32*kib + 256*kib + 128*kib + 256*kib
	mariadbSortBuffer = 2 * mib
	// the load runs this many connections at once (workload.LoadOrdered's
	// writers and the index builds)
	loaderConnections = 4

	// InnoDB builds all the secondary indexes one ALTER TABLE adds after
	// the load in one scan, each index in a sort buffer of its own
	// (innodb_sort_buffer_size) and in the tuple pointers and field
	// descriptors beside it, about 7 times the buffer for integer keys:
	// Redmine's issues (100,000 rows, 11 indexes) took the server's cgroup from
	// 147 MB to 226 MB at the default 1M, which the 256M cap's OOM killer
	// killed once in eight giant loads (issue 35). The buffer is sized so
	// that this many indexes at once fit the build's share: more than the
	// workloads' widest table (Redmine's issues, 11).
	innodbSortOverhead  = 8
	innodbIndexesAtOnce = 16

	// the postmaster and its background processes, and each backend's
	// own catalog caches and stack beyond work_mem
	postgresServer  = 48 * mib
	postgresBackend = 4 * mib

	// what the kernel needs in the cap to write and read the data files at
	// all: below this, the page cache thrashes on the server's own WAL
	minPageCache = 16 * mib
)

// engineCacheMinimum is the least main cache each engine works with.
var engineCacheMinimum = map[string]int64{
	"innodb":   32 * mib, // InnoDB refuses less than its chunk size allows
	"rocksdb":  8 * mib,
	"aria":     8 * mib,
	"myisam":   8 * mib,
	"memory":   8 * mib,
	"postgres": 16 * mib,
}

func clamp(v, lo, hi int64) int64 {
	return max(lo, min(v, hi))
}

// SizeMemory shares budget out for a MariaDB engine ("innodb", "rocksdb",
// "aria", "myisam", "memory") or PostgreSQL ("postgres") serving clients
// connections. It fails, naming the least budget that would do, when the
// budget cannot hold the server, its phases and the engine's smallest
// cache.
func SizeMemory(engine string, budget int64, clients int) (MemoryPlan, error) {
	return sizeMemory(engine, budget, clients, true)
}

// errTooSmall is a budget too small, while tooSmall searches for the least.
var errTooSmall = errors.New("budget too small")

// sizeMemory is SizeMemory; explain says whether a budget too small is
// explained (searching for the least that does) or only refused.
func sizeMemory(engine string, budget int64, clients int, explain bool) (MemoryPlan, error) {
	clients = max(clients, 1)
	p := MemoryPlan{Engine: engine, Budget: budget, Clients: clients, Settings: map[string]string{}}
	var n needs
	switch engine {
	case "postgres":
		n = postgresNeeds(p.Settings, budget, clients)
	case "innodb", "rocksdb", "aria", "myisam", "memory":
		n = mariadbNeeds(p.Settings, engine, budget, clients)
	default:
		return p, fmt.Errorf("no memory rule for engine %q", engine)
	}
	connections := int64(clients) * n.perConn
	load := n.build + loaderConnections*n.perConn
	phase, phaseName := connections, fmt.Sprintf("%d connections", clients)
	if load > connections {
		phase, phaseName = load, "load and index build"
	}
	pageCache := max(minPageCache, budget/8)
	cache := min(int64(float64(budget)*CacheShare), budget-n.fixed-n.writeBuffers-phase-pageCache)
	least := engineCacheMinimum[engine]
	if cache < least && !explain {
		return p, errTooSmall
	}
	if cache < least {
		return p, tooSmall(engine, budget, clients, n.fixed+n.writeBuffers+phase+minPageCache+least)
	}
	if engine == "postgres" {
		p.Settings[n.cacheSetting] = pgBytes(cache)
		p.Settings["effective_cache_size"] = pgBytes(budget - n.fixed - phase)
	} else {
		p.Settings[n.cacheSetting] = HumanBytes(cache)
		if engine == "memory" {
			p.Settings["tmp_table_size"] = HumanBytes(cache)
		}
	}
	p.Parts = []MemoryPart{{Name: "server", Bytes: n.fixed}, {Name: n.cacheSetting, Bytes: cache}}
	if n.writeBuffers > 0 {
		p.Parts = append(p.Parts, MemoryPart{Name: "write buffers", Bytes: n.writeBuffers})
	}
	p.Parts = append(p.Parts, MemoryPart{Name: phaseName, Bytes: phase},
		MemoryPart{Name: "page cache", Bytes: budget - n.fixed - cache - n.writeBuffers - phase})
	return p, nil
}

// needs is what a server takes of a budget besides its cache: the server
// itself, its write buffers, an index build and each connection, and the
// setting that sizes its cache.
type needs struct {
	fixed, writeBuffers, build, perConn int64
	cacheSetting                        string
}

// postgresNeeds sets PostgreSQL's per-operation memory for the budget.
func postgresNeeds(settings map[string]string, budget int64, clients int) needs {
	// work_mem is per sort or hash node: two per backend at once in the
	// workloads' queries; PostgreSQL's default of 4M, less when a quarter
	// of the budget cannot hold it for every client
	workMem := clamp((budget/4/int64(clients)-postgresBackend)/2, 64*kib, 4*mib)
	settings["work_mem"] = pgBytes(workMem)
	// CREATE INDEX after the load sorts in maintenance_work_mem
	maintenance := clamp(budget/8, 1*mib, 64*mib)
	settings["maintenance_work_mem"] = pgBytes(maintenance)
	return needs{fixed: postgresServer, perConn: postgresBackend + 2*workMem, build: maintenance, cacheSetting: "shared_buffers"}
}

// mariadbNeeds sets a MariaDB engine's buffers for the budget.
func mariadbNeeds(settings map[string]string, engine string, budget int64, clients int) needs {
	set := func(k string, v int64) { settings[k] = HumanBytes(v) }
	sort := mariadbSortBuffer
	if int64(clients)*(mariadbConnOthers+sort) > budget/4 {
		// many clients on a small budget: smaller sort buffers, as a DBA
		// would set them, rather than a server the cap kills
		sort = clamp(budget/4/int64(clients)-mariadbConnOthers, 256*kib, mariadbSortBuffer)
		set("sort_buffer_size", sort)
	}
	// the index builds of every engine MariaDB loads (its system tables
	// are Aria) sort in these buffers, whose defaults are 256M and 128M
	sortBuild := clamp(budget/16, 4*mib, 128*mib)
	set("aria_sort_buffer_size", sortBuild)
	set("myisam_sort_buffer_size", sortBuild)
	n := needs{fixed: mariadbServer, perConn: mariadbConnOthers + sort, build: sortBuild, cacheSetting: mariadbEngines[engine]}
	switch engine {
	case "innodb":
		logBuffer := clamp(budget/64, 2*mib, 16*mib)
		set("innodb_log_buffer_size", logBuffer)
		n.writeBuffers = logBuffer
		// InnoDB's own minimum is 64K and its default 1M; a whole number
		// of 64K blocks
		innodbSort := clamp(budget/16/(innodbIndexesAtOnce*innodbSortOverhead)/(64*kib)*(64*kib), 64*kib, 1*mib)
		set("innodb_sort_buffer_size", innodbSort)
		n.build = max(n.build, innodbIndexBuild(innodbSort))
	case "rocksdb":
		// memtables: one cap over every column family, each memtable half
		// of it, so a flush starts before the cap is reached
		memtables := clamp(budget/8, 16*mib, 256*mib)
		set("rocksdb_db_write_buffer_size", memtables)
		settings["rocksdb_default_cf_options"] = fmt.Sprintf("write_buffer_size=%d", memtables/2)
		n.writeBuffers = memtables
		// the secondary index build after the load sorts runs of
		// merge_buf_size and merges them reading combine_read_size: the
		// 1G default is what the memory cgroup killed at 1G
		mergeBuf := clamp(budget/32, 1*mib, 64*mib)
		combine := clamp(budget/16, 4*mib, 1024*mib)
		set("rocksdb_merge_buf_size", mergeBuf)
		set("rocksdb_merge_combine_read_size", combine)
		n.build = max(n.build, 2*mergeBuf+combine)
	}
	return n
}

// tooSmall names the least budget that does, and how that budget is
// shared out. The least is searched for rather than added up from this
// budget's parts: the page cache, the build buffers and work_mem grow with
// the budget, so a sum of the parts here fell short of what a budget that
// size gives each of them (and the parts said did not add up to the total).
func tooSmall(engine string, budget int64, clients int, from int64) error {
	for b := roundUp(from, 16*mib); b <= 1<<40; b += 16 * mib {
		if p, err := sizeMemory(engine, b, clients, false); err == nil {
			return fmt.Errorf("a budget of %s cannot hold %s with %s: it needs at least %s (there: %s)",
				HumanBytes(budget), engine, plural(clients, "client"), HumanBytes(b), partsAddingUp(p.Parts, b))
		}
	}
	return fmt.Errorf("a budget of %s cannot hold %s with %s", HumanBytes(budget), engine, plural(clients, "client"))
}

// partsAddingUp prints parts in whole MiB whose sum is total: each part
// is rounded down and the last takes what the rounding left, so the
// figures a user adds up give the figure the message names.
func partsAddingUp(parts []MemoryPart, total int64) string {
	var out []string
	left := total / mib
	for i, pt := range parts {
		m := pt.Bytes / mib
		if i == len(parts)-1 {
			m = left
		}
		left -= m
		out = append(out, fmt.Sprintf("%s %dM", pt.Name, m))
	}
	return strings.Join(out, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// innodbIndexBuild is what InnoDB's index build holds with sort buffers
// of sortBuffer bytes, for innodbIndexesAtOnce indexes.
func innodbIndexBuild(sortBuffer int64) int64 {
	return innodbIndexesAtOnce * innodbSortOverhead * sortBuffer
}

func roundUp(v, unit int64) int64 {
	return (v + unit - 1) / unit * unit
}

// SizeFor is SizeMemory for a target: false when the target has no memory
// rule (an embedded or external database, whose memory shootout does not
// cap).
func SizeFor(t Target, budget int64, clients int) (MemoryPlan, bool, error) {
	if !t.Managed() || t.Embedded() {
		return MemoryPlan{}, false, nil
	}
	d, isSQL := DialectOf(t)
	if !isSQL {
		flavor, engine := Kind(t)
		p, err := sizeNative(strings.TrimSuffix(flavor+"-"+engine, "-"), budget, clients)
		return p, true, err
	}
	engine := d.Engine
	if d.Flavor == dialect.Postgres {
		engine = "postgres"
	}
	p, err := SizeMemory(engine, budget, clients)
	return p, true, err
}

// The native servers keep their data in memory (Tarantool's vinyl on
// disk, with a cache): the store gets what is left of the budget once
// the process itself, its connections and a page cache for its files are
// counted. Measured here: redis-server 7.0 starts at 8 MB RSS, memcached
// 1.6 at 4 MB plus its hash table (8 bytes a bucket, grown to 1.5× the
// items: 192 MB at 10 M items, outside -m), tarantool 2.6 at 30 MB.
const (
	nativeServer   = 32 * mib
	nativePerConn  = 64 * kib
	nativeMinStore = 16 * mib
)

// sizeNative shares a budget out for "redis", "memcached",
// "tarantool-memtx" or "tarantool-vinyl".
func sizeNative(kind string, budget int64, clients int) (MemoryPlan, error) {
	p := MemoryPlan{Engine: kind, Budget: budget, Clients: max(clients, 1), Settings: map[string]string{}}
	conns := int64(p.Clients+loaderConnections) * nativePerConn
	rest := budget - nativeServer - conns - minPageCache
	p.Parts = []MemoryPart{{Name: "server", Bytes: nativeServer}, {Name: fmt.Sprintf("connections (%d)", p.Clients+loaderConnections), Bytes: conns}, {Name: "page cache", Bytes: minPageCache}}
	var store int64
	switch kind {
	case "redis":
		// jemalloc's fragmentation and Redis's own overhead above
		// used_memory take about a quarter more
		store = rest * 3 / 4
		p.Settings["maxmemory"] = fmt.Sprint(store)
		p.Settings["maxmemory-policy"] = "noeviction"
		p.Parts = append(p.Parts, MemoryPart{Name: "maxmemory (noeviction)", Bytes: store})
	case "memcached":
		// the hash table lives outside -m
		store = rest / 2
		p.Settings["memory-limit"] = fmt.Sprint(store / mib)
		p.Parts = append(p.Parts, MemoryPart{Name: "memory-limit (evictions off)", Bytes: store}, MemoryPart{Name: "hash table", Bytes: rest - store})
	case "tarantool-memtx":
		store = rest * 3 / 4
		p.Settings["memtx_memory"] = fmt.Sprint(store)
		p.Parts = append(p.Parts, MemoryPart{Name: "memtx_memory", Bytes: store})
	case "tarantool-vinyl":
		// memtx still holds the system spaces
		p.Settings["memtx_memory"] = fmt.Sprint(32 * mib)
		store = (rest - 32*mib) / 2
		p.Settings["vinyl_memory"] = fmt.Sprint(store / 2)
		p.Settings["vinyl_cache"] = fmt.Sprint(store / 2)
		p.Parts = append(p.Parts, MemoryPart{Name: "memtx_memory", Bytes: 32 * mib}, MemoryPart{Name: "vinyl_memory", Bytes: store / 2}, MemoryPart{Name: "vinyl_cache", Bytes: store / 2})
	default:
		return p, fmt.Errorf("no memory rule for %s", kind)
	}
	if store < nativeMinStore {
		return p, fmt.Errorf("%s leaves %s for %s's data, less than %s: give it at least %s", HumanBytes(budget), HumanBytes(max(store, 0)), kind, HumanBytes(nativeMinStore), HumanBytes(budget-store+2*nativeMinStore))
	}
	return p, nil
}

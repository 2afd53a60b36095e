package plan

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"shootout/internal/shard"
	"shootout/internal/workload"
)

// Setting is one setting of a run, declared once: the plan file's key,
// the run flag, its type, default, what is valid, its help, and what it
// is to a cell. Flags, the plan's keys, the hint for a misspelt key,
// --help and the refusals all come from this table (Settings), so a
// setting cannot drift between them.
type Setting struct {
	// Key is the plan file's key, and the Plan field whose yaml tag it is.
	Key string
	// Flag is the run flag; "" for a setting only a plan file gives
	// (per-target settings, a study's pairings).
	Flag string
	// Type is the flag's type as --help names it: string, int, int64,
	// float64 (a list is a string of comma-separated values).
	Type string
	// Default is the value when neither plan nor flag gives one; Resolve
	// uses it, and --help shows it unless Help already says it.
	Default string
	// Valid says what a value must be, after "is not" in a refusal.
	Valid string
	// Help is the flag's help, its placeholder in backquotes; {targets}
	// and {workloads} stand for the registered names.
	Help string
	// HelpSaysDefault: Help gives the default in its own words.
	HelpSaysDefault bool
	// Identity: part of a cell's conditions or id, so --resume and
	// compare tell cells that differ in it apart.
	Identity bool
	// Axis: one cell per value.
	Axis bool
	// Clears are the keys a flag's value replaces: a bound given on the
	// command line replaces the plan's others.
	Clears []string
	// Hidden: an old name, still read.
	Hidden bool
}

// Settings is every setting of a run, in the plan file's order.
var Settings = []Setting{
	{Key: "name", Type: "string", Default: "custom"},
	{Key: "targets", Flag: "targets", Type: "string", Axis: true, Identity: true, Clears: []string{"baseline"},
		Help: "the targets, `TARGET[,TARGET]` of: {targets} (shootout targets), mariadb-ENGINE@DIR for another build, " +
			"or a server you run: mysql://, postgres://, redis://, tarantool:// or memcached:// URL (default: the study's)"},
	{Key: "baseline", Flag: "baseline", Type: "string",
		Help: "the `TARGET` the others are compared with, or one of its variants as the report names it, such as 'mariadb-galera writers=one' " +
			"(default: the study's baseline, else the first target; of a target with variants, its first)"},
	{Key: "workloads", Flag: "workload", Type: "string", Axis: true, Identity: true,
		Help: "the workloads, `NAME[,NAME]` of: {workloads} (shootout studies, docs/workloads.md; default: the study's)"},
	{Key: "params", Flag: "param", Type: "stringArray", Identity: true, Valid: "key=value",
		Help: "workload parameter `KEY=VALUE` (repeatable), e.g. --param point_selects=5"},
	{Key: "datasets", Flag: "dataset", Type: "string", Axis: true, Identity: true,
		Help: "the datasets, `DATASET[,DATASET]`: rows for oltp_* (1000000, 1M; default 1M) and kv (default 10M), products for shop (default 40000), " +
			"small, large or giant for redmine (default small), the file's name for dump (default: the workload's, or the study's)"},
	{Key: "clients", Flag: "clients", Type: "string", Default: "1", Axis: true, Identity: true,
		Valid: "a client count from 1 to 1000", HelpSaysDefault: true,
		Help: "client counts `N[,N]`, e.g. 1,2,4 (default: the study's; 1 with --workload and no --study)"},
	{Key: "duration", Flag: "duration", Type: "string", Identity: true, Clears: []string{"ops", "reps"},
		Valid: "a duration such as 30s or 5m",
		Help:  "how long each cell drives the workload, a `DURATION` such as 60s or 2m (default: the study's; 60s with --workload and no --study)"},
	{Key: "ops", Flag: "ops", Type: "int64", Identity: true, Clears: []string{"duration", "reps"}, Valid: "a count, 0 or more",
		Help: "stop each cell after `N` operations in all (default: no count, --duration stops it)"},
	{Key: "reps", Flag: "reps", Type: "int64", Identity: true, Clears: []string{"duration", "ops"}, Valid: "a count, 0 or more",
		Help: "stop each client after `N` operations of its own, as siege -r (default: none; the shop study: 50)"},
	{Key: "rate", Flag: "rate", Type: "float64", Identity: true, Valid: "a rate, 0 or more",
		Help: "fixed rate in `OPS` per second over all clients (default 0: closed loop)"},
	{Key: "agents", Flag: "agents", Type: "string", Default: "0", Axis: true, Identity: true, Valid: "agent counts from 0 to 64, each at most the clients, such as 0,2",
		Help: "run each cell's clients in `N` agent processes (shootout agent) started on one barrier, their histograms merged exactly; one cell per count, so 0,2 compares one process with two in the same run (default 0: in shootout's own process; on SQL, workloads whose clients share nothing: oltp_* and ping)"},
	{Key: "agent_cpu", Flag: "agent-cpu", Type: "float64", Identity: true, Valid: "a share of one CPU from 0.01 to 1, such as 0.25 (0: no quota)",
		Help: "each agent's CPU, a quota in `CORES` of its one CPU (cpu.cfs_quota_us of its own cgroup) such as 0.25: client machines smaller than the server's, " +
			"so that one agent is saturated where several are not (default 0: the whole CPU; needs --agents and cgroups)"},
	{Key: "repeat", Flag: "repeat", Type: "string", Default: "1", Valid: "a repeat count from 1 to 100, or auto",
		Help: "repeats of every cell, `N|auto`; auto: until the relative standard deviation of its tps (fixed-rate cells: its mean time) is under --rsd, " +
			"at least as many times as can reach p < --alpha (4 at 0.05) and at most --max-repeat"},
	{Key: "rsd", Flag: "rsd", Type: "float64", Default: "3", Valid: "a percentage between 0 and 100 (such as 3)",
		Help: "with --repeat auto: the relative standard deviation, in `PERCENT`, that is steady enough"},
	{Key: "max_repeat", Flag: "max-repeat", Type: "int", Default: "10",
		Help: "with --repeat auto: the most repeats, `N`, of a cell"},
	{Key: "alpha", Flag: "alpha", Type: "float64", Default: "0.05", Valid: "a significance level in (0, 1) such as 0.05",
		Help: "with --repeat auto: the significance `LEVEL` the repeats must be able to reach (the report's is 0.05; compare --alpha 0.01 needs 5)"},
	{Key: "memory", Flag: "memory", Type: "string", Identity: true, Clears: []string{"dataset_memory"},
		Help: "memory of the server's VM, a `SIZE` such as 1G: a cgroup cap that includes the page cache; half goes to the engine's cache (default: the study's, else no cap)"},
	{Key: "iops", Flag: "iops", Type: "int", Identity: true, Valid: "an IOPS cap, 0 or more",
		Help: "read and write IOPS cap on the disk of the server's data (cgroup blkio), `N` such as 100 for an HDD (default: the study's, else no cap)"},
	{Key: "bps", Flag: "bps", Type: "string", Identity: true,
		Help: "read and write bandwidth cap on the disk of the server's data (cgroup blkio), a `SIZE` per second such as 20M (default: no cap)"},
	{Key: "disk", Flag: "disk", Type: "string", Identity: true,
		Help: "put the server's data on a modelled `DISK`: hdd, ssd, cloud or none, with :key=value,... to change a parameter (docs/disks.md; default: the raw disk)"},
	{Key: "cpus", Flag: "cpus", Type: "string", Identity: true,
		Help: "the server's `CPUS`: a cpuset list such as 1 or 1-3 (shootout gets the rest), or a quota in cores with a decimal point such as 0.5 " +
			"(CPU time per 100 ms period); \"all\" for neither (default: the server on every core but the first, shootout on the first)"},
	{Key: "link", Flag: "link", Type: "string", Axis: true, Identity: true,
		Valid: "links DELAY[,RATE][,DELAY[,RATE]...]: each a one-way delay such as 1ms with a bandwidth in tc's units such as 1gbit, or none (or 0: no link)",
		Help: "the links between a cluster's nodes, `LINK[,LINK]`, each DELAY[,RATE] such as 1ms,1gbit or none: each packet from one node to another held for DELAY " +
			"(a round trip takes twice it) at the link's bandwidth; one cell per link on the cluster targets, a single server's with none " +
			"(default: none, the nodes' veths with no delay or cap)"},
	{Key: "link_targets", Type: "string"},
	{Key: "neighbour", Flag: "neighbour", Type: "string", Default: "0", Axis: true, Identity: true, HelpSaysDefault: true,
		Valid: "one of 0, 25%, x1, x2, x4",
		Help:  "neighbour disk loads, `LOAD[,LOAD]` (fio, random 4k 50/50, direct): 0, 25% (of --iops), x1, x2, x4 jobs (default: 0, none)"},
	{Key: "paths", Flag: "path", Type: "string", Axis: true, Identity: true,
		Help: "kv access paths, `PATH[,PATH]`: prepared, text, handler (MariaDB), batch, get (Redis, Tarantool, memcached); each target runs those it speaks (default: the study's, else each server's point read)"},
	{Key: "allocators", Flag: "allocator", Type: "string", Axis: true, Identity: true, Clears: []string{"allocator_targets"},
		Help: "memory allocators, `NAME[,NAME]`, under the managed servers (LD_PRELOAD, proven from /proc/PID/maps): glibc, jemalloc, tcmalloc (default: each server's own)"},
	{Key: "allocator_targets", Type: "string"},
	{Key: "app", Flag: "app", Type: "string", Axis: true, Identity: true,
		Help: "in front of the database, `APP[,APP]`: none (the clients speak SQL) and/or redmine (Debian's Redmine under puma in the loop, one worker per client, driven over its REST API; default: none)"},
	{Key: "trim", Flag: "trim", Type: "string", Default: "0.1", Identity: true, HelpSaysDefault: true,
		Valid: "a fraction from 0 to below 0.5, such as 0.1",
		Help:  "`FRACTION` of operations dropped at the start and at the end (default 0.1)"},
	{Key: "interval", Flag: "interval", Type: "string", Default: "10s", Identity: true, HelpSaysDefault: true,
		Valid: "a duration such as 10s (0 for none)",
		Help:  "interval report period, a `DURATION` (default 10s; 0 for no interval lines)"},
	{Key: "data_seed", Flag: "data-seed", Type: "int64", Default: "1", Identity: true,
		Help: "the dataset's random `SEED`: the same seed gives the same data on every target"},
	{Key: "seed", Flag: "seed", Type: "int64", Default: "1", Identity: true, Hidden: true, Help: "old name of --data-seed"},
	{Key: "settings", Type: "map", Axis: true, Identity: true},
	{Key: "settings_file", Type: "map", Identity: true},
	{Key: "max_retries", Flag: "max-retries", Type: "int", Default: "10", Identity: true, Valid: "a retry count, 0 or more",
		Help: "`N` retries of an operation after a deadlock, lock timeout or write conflict; " +
			"an error rule of the workload's own that retries without a limit (oltp's, as sysbench ignores errors) is not bounded by it"},
	{Key: "neighbour_file", Type: "string", Default: "256M", Identity: true, Valid: "a size from 16M to 2G"},
	{Key: "dataset_memory", Type: "map", Identity: true},
	{Key: "shard", Flag: "shard", Type: "string", Valid: shard.Valid,
		Help: "run only this machine's share of the cells, `I/N` (0-based, as a Kubernetes Indexed Job's JOB_COMPLETION_INDEX): " +
			"N machines given the same plan run disjoint shares that cover it, and shootout merge joins their --out directories (docs/cluster-jobs.md)"},
}

// SettingByKey is the setting of a plan key; nil for none.
func SettingByKey(key string) *Setting {
	for i := range Settings {
		if Settings[i].Key == key {
			return &Settings[i]
		}
	}
	return nil
}

// SettingByFlag is the setting of a run flag; nil for none.
func SettingByFlag(flag string) *Setting {
	for i := range Settings {
		if Settings[i].Flag == flag && flag != "" {
			return &Settings[i]
		}
	}
	return nil
}

// Keys are the plan file's keys, in the table's order.
func Keys() []string {
	out := make([]string, len(Settings))
	for i, s := range Settings {
		out[i] = s.Key
	}
	return out
}

// Usage is the flag's help with the registered names put in.
func (s *Setting) Usage() string {
	var targets []string
	if env := registered; env != nil {
		targets = env.Names()
	}
	return strings.NewReplacer("{targets}", strings.Join(targets, ", "), "{workloads}", strings.Join(workload.Names(), ", ")).Replace(s.Help)
}

// FlagDefault is the default --help shows: none where Help says it.
func (s *Setting) FlagDefault() string {
	if s.HelpSaysDefault {
		return ""
	}
	return s.Default
}

// CheckFlagValue checks a flag's text against its type as it is given,
// with the strconv error the flag package would give.
func (s *Setting) CheckFlagValue(v string) error {
	var err error
	switch s.Type {
	case "int", "int64":
		_, err = strconv.ParseInt(v, 0, 64)
	case "float64":
		_, err = strconv.ParseFloat(v, 64)
	}
	return err
}

// suggest is the key nearest to a misspelt one, "" when none is near.
func suggest(key string) string {
	// near: at most a third of the key's letters wrong (two for a short one)
	best, bestD := "", max(2, len(key)/3)+1
	for _, k := range Keys() {
		if d := distance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// field is the Plan field whose yaml key is key.
func (p *Plan) field(key string) reflect.Value {
	v := reflect.ValueOf(p).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag == key {
			return v.Field(i)
		}
	}
	panic("plan: no field for key " + key)
}

// Given is a flag's value as the command line gave it (a repeatable
// flag's every value).
type Given struct {
	Flag   string
	Values []string
}

// SetFlags puts the flags' values into p, each parsed once into its
// field's type: first what each flag replaces is cleared (a bound given
// on the command line replaces the plan's others), then the values are
// set; flags win over the plan.
func (p *Plan) SetFlags(given []Given) error {
	for _, g := range given {
		for _, k := range SettingByFlag(g.Flag).Clears {
			f := p.field(k)
			f.Set(reflect.Zero(f.Type()))
		}
	}
	for _, g := range given {
		if err := p.setFlag(SettingByFlag(g.Flag), g.Values); err != nil {
			return err
		}
	}
	p.diskOverIOPS = slices.ContainsFunc(given, func(g Given) bool { return g.Flag == "disk" }) &&
		!slices.ContainsFunc(given, func(g Given) bool { return g.Flag == "iops" })
	return nil
}

func (p *Plan) setFlag(s *Setting, values []string) error {
	f := p.field(s.Key)
	last := values[len(values)-1]
	bad := func(v string) error { return fmt.Errorf("--%s: %q is not %s", s.Flag, v, s.Valid) }
	switch f.Interface().(type) {
	case string:
		f.SetString(strings.TrimSpace(last))
	case []string:
		f.Set(reflect.ValueOf(splitList(last)))
	case LinkList:
		f.Set(reflect.ValueOf(splitLinks(last)))
	case []int, IntList:
		var out []int
		for _, v := range splitList(last) {
			n, err := strconv.Atoi(v)
			if err != nil || strconv.Itoa(n) != v {
				return fmt.Errorf("--%s: %q is not a whole number (want e.g. 1,2,4)", s.Flag, v)
			}
			out = append(out, n)
		}
		f.Set(reflect.ValueOf(out).Convert(f.Type()))
	case int, int64:
		n, _ := strconv.ParseInt(last, 0, 64)
		f.SetInt(n)
	case float64:
		x, _ := strconv.ParseFloat(last, 64)
		f.SetFloat(x)
	case *float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(last), 64)
		if err != nil {
			return bad(last)
		}
		f.Set(reflect.ValueOf(&x))
	case *int:
		n, _ := strconv.Atoi(last)
		f.Set(reflect.ValueOf(&n))
	case map[string]string:
		return p.setParams(s, values)
	default:
		panic("plan: setting " + s.Key + " has a type flags do not set")
	}
	return nil
}

// setParams adds key=value pairs to the params, the flags' last word.
func (p *Plan) setParams(s *Setting, values []string) error {
	if p.Params == nil {
		p.Params = map[string]string{}
	}
	for _, kv := range values {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--%s %q: want %s", s.Flag, kv, s.Valid)
		}
		p.Params[k] = v
	}
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// defaultOf is a setting's default parsed as a float, for Resolve.
func defaultOf(key string) float64 {
	x, err := strconv.ParseFloat(SettingByKey(key).Default, 64)
	if err != nil {
		panic("plan: setting " + key + " has no numeric default")
	}
	return x
}

package plan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"shootout/internal/proto"
	"shootout/internal/result"
	"shootout/internal/shard"
	"shootout/internal/stats"
	"shootout/internal/workload"
)

// resolver is one Resolve: the plan, what it resolves to so far, and
// the values each step parsed, each parsed once.
type resolver struct {
	p    *Plan
	r    *Resolved
	env  Env
	opt  Options
	seen map[string]bool // the plan's targets by name, skipped ones too
	wls  map[string]workload.Workload

	repeats   int
	mem       int64
	memOf     map[string]int64 // dataset -> its VM size
	bps       int64
	diskModel string
	apps      []string
	variants  map[variantKey][]variant
	linkAxis  []string // canonical links, "" for none
	// baseVariant is the baseline's variant as the plan named it
	// ("writers=all"), "" for its first
	baseVariant string
	tvs         map[string][]targetVariant // by target name
}

// Resolve validates p and expands it into cells.
func (p *Plan) Resolve(opt Options) (*Resolved, error) {
	env, err := opt.env()
	if err != nil {
		return nil, err
	}
	if err := p.settingsFromNode(); err != nil {
		return nil, err
	}
	rs := &resolver{p: p, env: env, opt: opt, r: &Resolved{Name: p.Name, Settings: p.Settings, Skipped: map[string]string{}}}
	for _, step := range []func() error{rs.targets, rs.workloads, rs.bounds, rs.repeat, rs.run, rs.limits, rs.neighbours, rs.axes} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	rs.expand()
	return rs.r, rs.shard()
}

// shard keeps this machine's share of the cells (--shard).
func (rs *resolver) shard() error {
	if rs.p.Shard == "" {
		return nil
	}
	s, err := shard.Parse(rs.p.Shard)
	if err != nil {
		return rs.p.errAt("shard", "%v", err)
	}
	rs.r.Shard, rs.r.PlanCells, rs.r.All = &s, len(rs.r.Cells), slices.Clone(rs.r.Cells)
	rs.r.Cells = shard.Select(rs.r.Cells, s)
	rs.r.Notes = append(rs.r.Notes, fmt.Sprintf("shard %s: %d of the plan's %d cells", s, len(rs.r.Cells), rs.r.PlanCells))
	return nil
}

func (rs *resolver) targets() error {
	p, r := rs.p, rs.r
	if r.Name == "" {
		r.Name = SettingByKey("name").Default
	}
	if len(p.Targets) == 0 {
		return p.errAt("targets", "no targets; name at least one of %s", strings.Join(rs.env.Names(), ", "))
	}
	rs.seen = map[string]bool{}
	for _, name := range p.Targets {
		t, err := rs.env.Lookup(strings.TrimSpace(name))
		if err != nil {
			return p.errAt("targets", "%v", err)
		}
		if rs.seen[t.Name()] {
			return p.errAt("targets", "%s is listed twice", t.Name())
		}
		rs.seen[t.Name()] = true
		if rs.opt.Available != nil {
			if err := rs.opt.Available(t); err != nil {
				r.Skipped[t.Name()] = err.Error()
				continue
			}
		}
		r.Targets = append(r.Targets, t)
	}
	if len(r.Targets) == 0 {
		var why []string
		for n, e := range r.Skipped {
			why = append(why, n+": "+e)
		}
		sort.Strings(why)
		return fmt.Errorf("no target can run here: %s", strings.Join(why, "; "))
	}
	return rs.baseline()
}

func (rs *resolver) baseline() error {
	p, r := rs.p, rs.r
	r.Baseline = p.Baseline
	if _, err := rs.env.Lookup(r.Baseline); err != nil && strings.Contains(r.Baseline, " ") {
		// a variant of a target, as the report names it
		r.Baseline, rs.baseVariant, _ = strings.Cut(r.Baseline, " ")
	}
	if t, err := rs.env.Lookup(r.Baseline); r.Baseline != "" && (err != nil || !rs.seen[t.Name()]) {
		return p.errAt("baseline", "%q is not one of the targets", r.Baseline)
	}
	if _, skipped := r.Skipped[r.Baseline]; skipped || r.Baseline == "" {
		r.Baseline = r.Targets[0].Name()
	}
	for _, name := range append(slices.Collect(maps.Keys(p.Settings)), slices.Collect(maps.Keys(p.SettingAxes))...) {
		t, err := rs.env.Lookup(name)
		if err != nil || !rs.seen[t.Name()] {
			return p.errAt("settings", "settings for %q, which is not one of the targets", proto.Redact(name))
		}
	}
	return nil
}

func (rs *resolver) workloads() error {
	p := rs.p
	if len(p.Workloads) == 0 {
		return p.errAt("workloads", "no workload; valid: %s", strings.Join(workload.Names(), ", "))
	}
	rs.wls = map[string]workload.Workload{}
	for _, name := range p.Workloads {
		w, err := workload.New(name, p.Params)
		if err != nil && p.file == "" && strings.HasPrefix(err.Error(), "--") {
			return err // it names its own flag (--dump, --queries)
		}
		if err != nil {
			key := "workloads"
			if strings.Contains(err.Error(), "parameter") {
				key = "params"
			}
			return p.errAt(key, "%v", err)
		}
		if sp, ok := w.(workload.SelfPaced); ok {
			for _, b := range []struct {
				key string
				set bool
			}{{"rate", p.Rate > 0}, {"ops", p.Ops > 0}, {"reps", p.Reps > 0}} {
				if b.set {
					return p.errAt(b.key, "not for %s: %s; give a duration", name, sp.PacedBy())
				}
			}
		}
		rs.wls[name] = w
		rs.made(name, p.Params, w)
	}
	return rs.datasets()
}

func (rs *resolver) datasets() error {
	p, r := rs.p, rs.r
	r.Seed = p.Seed
	if p.DataSeed != 0 {
		r.Seed = p.DataSeed
	}
	if r.Seed == 0 {
		r.Seed = int64(defaultOf("data_seed"))
	}
	if len(p.Datasets) == 0 {
		defaults := map[string]bool{}
		for _, w := range rs.wls {
			defaults[w.DefaultDataset()] = true
		}
		if len(defaults) != 1 {
			return p.errAt("datasets", "no dataset given, and the workloads' default datasets differ")
		}
		p.Datasets = slices.Collect(maps.Keys(defaults))
	}
	for _, ds := range p.Datasets {
		for _, w := range rs.wls {
			if _, err := w.Dataset(ds, r.Seed); err != nil {
				return p.errAt("datasets", "%v", err)
			}
		}
	}
	return nil
}

// made keeps a workload the plan made, for its cells.
func (rs *resolver) made(name string, params map[string]string, w workload.Workload) {
	if rs.r.workloads == nil {
		rs.r.workloads = map[string]workload.Workload{}
	}
	rs.r.workloads[workloadKey(name, params)] = w
}

// unique keeps the first of each value, in order.
func unique[T comparable](vs []T) []T {
	var out []T
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// bounds are the clients and what ends a cell: a duration, a count of
// operations, or of operations per client.
func (rs *resolver) bounds() error {
	p, r := rs.p, rs.r
	if len(p.Clients) == 0 {
		p.Clients = []int{int(defaultOf("clients"))}
	}
	for _, c := range p.Clients {
		if c < 1 || c > 1000 {
			return p.errAt("clients", "%d is not %s", c, SettingByKey("clients").Valid)
		}
	}
	if len(p.Agents) == 0 {
		p.Agents = IntList{int(defaultOf("agents"))}
	}
	// a count given twice would make two cells of one id
	p.Clients, p.Agents = unique(p.Clients), unique(p.Agents)
	for _, a := range p.Agents {
		if a < 0 || a > 64 {
			return p.errAt("agents", "%d is not %s", a, SettingByKey("agents").Valid)
		}
		if least := slices.Min(p.Clients); a > least {
			return p.errAt("agents", "%d agents for %d clients: each agent runs at least one client (give clients of %d or more, or fewer agents)", a, least, a)
		}
	}
	if err := p.agentCPU(); err != nil {
		return err
	}
	if p.Duration != "" {
		d, err := time.ParseDuration(p.Duration)
		if err != nil || d < 0 {
			return p.errAt("duration", "%q is not %s", p.Duration, SettingByKey("duration").Valid)
		}
		r.Duration = d
	}
	for _, b := range []struct {
		key string
		n   float64
	}{{"ops", float64(p.Ops)}, {"reps", float64(p.Reps)}, {"rate", p.Rate}} {
		if b.n < 0 {
			return p.errAt(b.key, "must not be negative")
		}
	}
	if r.Duration == 0 && p.Ops == 0 && p.Reps == 0 {
		return p.errAt("duration", "give a duration (such as 60s), an operation count (ops) or operations per client (reps)")
	}
	return nil
}

// repeat is how often each cell runs: a count, or auto.
func (rs *resolver) repeat() error {
	p := rs.p
	rs.repeats = 1
	switch p.Repeat {
	case "", SettingByKey("repeat").Default:
	case "auto":
		a, err := rs.autoRepeat()
		if err != nil {
			return err
		}
		rs.r.AutoRepeat = a
	default:
		n, err := strconv.Atoi(p.Repeat)
		if err != nil || n < 1 || n > 100 {
			return p.errAt("repeat", "%q is not %s", p.Repeat, SettingByKey("repeat").Valid)
		}
		rs.repeats = n
	}
	if rs.r.AutoRepeat == nil && (p.RSD != nil || p.MaxRepeat != 0 || p.Alpha != nil) {
		return p.errAt("repeat", "rsd, max_repeat and alpha apply to repeat: auto only")
	}
	return nil
}

func (rs *resolver) autoRepeat() (*AutoRepeat, error) {
	p := rs.p
	a := &AutoRepeat{RSD: defaultOf("rsd") / 100, Max: int(defaultOf("max_repeat")), Alpha: defaultOf("alpha")}
	if p.Alpha != nil {
		if *p.Alpha <= 0 || *p.Alpha >= 1 {
			return nil, p.errAt("alpha", "%v is not %s", *p.Alpha, SettingByKey("alpha").Valid)
		}
		a.Alpha = *p.Alpha
	}
	a.Min = stats.LeastRepeats(a.Alpha)
	a.Max = max(a.Max, a.Min)
	if p.RSD != nil {
		if *p.RSD <= 0 || *p.RSD >= 100 {
			return nil, p.errAt("rsd", "%v is not %s", *p.RSD, SettingByKey("rsd").Valid)
		}
		a.RSD = *p.RSD / 100
	}
	if p.MaxRepeat != 0 {
		if p.MaxRepeat < a.Min || p.MaxRepeat > 100 {
			return nil, p.errAt("max_repeat", "%d is not a repeat count from %d (the fewest that can reach p < %v) to 100",
				p.MaxRepeat, a.Min, a.Alpha)
		}
		a.Max = p.MaxRepeat
	}
	return a, nil
}

// run is how a cell's run is measured: trim, interval lines, retries.
func (rs *resolver) run() error {
	p, r := rs.p, rs.r
	r.Trim = defaultOf("trim")
	if p.Trim != nil {
		if *p.Trim < 0 || *p.Trim >= 0.5 {
			return p.errAt("trim", "%q is not %s", strconv.FormatFloat(*p.Trim, 'g', -1, 64), SettingByKey("trim").Valid)
		}
		r.Trim = *p.Trim
	}
	interval := SettingByKey("interval").Default
	if p.Interval != "" {
		interval = p.Interval
	}
	d, err := time.ParseDuration(interval)
	if err != nil || d < 0 {
		return p.errAt("interval", "%q is not %s", p.Interval, SettingByKey("interval").Valid)
	}
	r.Interval = d
	r.MaxRetries = int(defaultOf("max_retries"))
	if p.MaxRetries != nil {
		if *p.MaxRetries < 0 {
			return p.errAt("max_retries", "must not be negative")
		}
		r.MaxRetries = *p.MaxRetries
	}
	return nil
}

// limits are the server's VM: memory, disk caps, disk model, CPUs.
func (rs *resolver) limits() error {
	p := rs.p
	var err error
	if rs.mem, err = p.memory("memory", p.Memory); err != nil {
		return err
	}
	rs.memOf = map[string]int64{}
	for ds, v := range p.DatasetMemory {
		if rs.memOf[ds], err = p.memory("dataset_memory", v); err != nil {
			return err
		}
	}
	if p.IOPS < 0 {
		return p.errAt("iops", "must not be negative")
	}
	if p.BPS != "" {
		if rs.bps, err = ParseBytes(p.BPS); err != nil {
			return p.errAt("bps", "%v (bytes per second, e.g. 20M)", err)
		}
	}
	if p.Disk != "" {
		if rs.diskModel, err = rs.env.Disk(p.Disk); err != nil {
			return p.errAt("disk", "%v", err)
		}
		// a study's IOPS cap is its stand-in for a slow disk: a modelled
		// disk given on the command line replaces it, unless --iops asks
		// for both
		if p.diskOverIOPS && rs.diskModel != "" && p.IOPS > 0 {
			rs.r.Notes = append(rs.r.Notes, fmt.Sprintf("--disk %s replaces the plan's --iops %d (its stand-in for a slow disk); give --iops too to keep both", rs.diskModel, p.IOPS))
			p.IOPS = 0
		}
	}
	if err := rs.env.CPUs(p.CPUs); err != nil {
		return p.errAt("cpus", "%v", err)
	}
	rs.r.CPUs = p.CPUs
	return nil
}

// agentCPU checks the agents' quota: a share of the one CPU each agent's
// cgroup has, and agents to apply it to.
func (p *Plan) agentCPU() error {
	if p.AgentCPU == 0 {
		return nil
	}
	if p.AgentCPU < 0.01 || p.AgentCPU > 1 {
		return p.errAt("agent_cpu", "%g is not %s", p.AgentCPU, SettingByKey("agent_cpu").Valid)
	}
	if slices.Max(p.Agents) == 0 {
		return p.errAt("agent_cpu", "%g is a quota of each agent's and the plan runs no agents (give agents, --agents N)", p.AgentCPU)
	}
	return nil
}

// memory reads a VM size: "" for none, at least what a server needs.
func (p *Plan) memory(key, v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	m, err := ParseBytes(v)
	if err != nil {
		return 0, p.errAt(key, "%v", err)
	}
	if m < 64<<20 {
		return 0, p.errAt(key, "%s is below the 64M a server needs to start", v)
	}
	return m, nil
}

// neighbours are the fio loads beside the server, and their file.
func (rs *resolver) neighbours() error {
	p := rs.p
	file := SettingByKey("neighbour_file")
	size := file.Default
	if p.NeighbourFile != "" {
		size = p.NeighbourFile
	}
	n, err := ParseBytes(size)
	if err != nil || n < 16<<20 || n > 2<<30 {
		return p.errAt("neighbour_file", "%q is not %s", p.NeighbourFile, file.Valid)
	}
	rs.r.NeighbourFileBytes = n
	if len(p.Neighbour) == 0 {
		p.Neighbour = []string{SettingByKey("neighbour").Default}
	}
	for _, n := range p.Neighbour {
		if !neighbourRE.MatchString(n) {
			return p.errAt("neighbour", "%q is not %s", n, SettingByKey("neighbour").Valid)
		}
		if n == "25%" && p.IOPS <= 0 && rs.diskModel == "" {
			return p.errAt("neighbour", "25%% is a quarter of the disk's IOPS: give %s (the disk's cap, e.g. 100) or %s (a disk model)", p.named("iops"), p.named("disk"))
		}
	}
	return nil
}

// axes are the app axis, the targets' own (settings, link), and the
// path and allocator axes per workload and target.
func (rs *resolver) axes() error {
	var err error
	if rs.apps, err = rs.appAxis(); err != nil {
		return err
	}
	if err := rs.targetAxes(); err != nil {
		return err
	}
	if err := rs.baselineLabel(); err != nil {
		return err
	}
	rs.variants, err = rs.variantsOf()
	return err
}

// expand makes the cells: repeats outermost, so that each round runs
// every cell once and a drift of the machine spreads over all; targets
// innermost but for their variants, so drift hits them alike.
func (rs *resolver) expand() {
	p := rs.p
	for rep := 1; rep <= rs.repeats; rep++ {
		for _, ds := range p.Datasets {
			for _, wl := range p.Workloads {
				for _, c := range p.Clients {
					for _, n := range p.Neighbour {
						rs.expandTargets(rep, ds, wl, c, n)
					}
				}
			}
		}
	}
}

func (rs *resolver) expandTargets(rep int, ds, wl string, clients int, neighbour string) {
	p, r := rs.p, rs.r
	mem := rs.mem
	if m, ok := rs.memOf[ds]; ok {
		mem = m
	}
	for _, t := range r.Targets {
		for _, ap := range rs.apps {
			for _, v := range rs.variants[variantKey{wl, t.Name()}] {
				for _, agents := range p.Agents {
					rs.addCell(rep, ds, wl, clients, neighbour, mem, t, ap, v, agents)
				}
			}
		}
	}
}

// addCell adds one cell of the plan's matrix.
func (rs *resolver) addCell(rep int, ds, wl string, clients int, neighbour string, mem int64, t Target, ap string, v variant, agents int) {
	p, r := rs.p, rs.r
	cond := result.Conditions{MemoryBytes: mem, IOPS: p.IOPS, BPS: rs.bps, Disk: rs.diskModel, CPUs: p.CPUs, Link: v.link, Neighbour: neighbour,
		Trim: r.Trim, Interval: r.Interval.String(), Seed: r.Seed, MaxRetries: r.MaxRetries, Agents: agents, AgentCPU: p.AgentCPU,
		Settings: v.settings, App: ap, WorkloadVersion: workload.VersionOf(rs.wls[wl]), Allocator: v.allocator}
	if neighbour != "0" {
		cond.NeighbourFileBytes = r.NeighbourFileBytes
	}
	if agents == 0 {
		cond.AgentCPU = 0 // shootout's own process has no quota: the cell is the one without
	}
	cell := result.Cell{
		Target: t.Name(), Variant: v.label, Workload: wl, Params: v.params, Dataset: ds, Clients: clients,
		Conditions: cond, Repeat: rep, Ops: p.Ops, Reps: p.Reps, Rate: p.Rate,
	}
	if r.Duration > 0 {
		cell.Duration = r.Duration.String()
	}
	cell.ID = CellID(cell)
	r.Cells = append(r.Cells, cell)
}

// settingsOf finds the plan's settings for t, whichever name the plan
// used: those of one value, and its axes.
func (rs *resolver) settingsOf(t Target) (fixed map[string]string, axes map[string][]string) {
	for name, s := range rs.p.Settings {
		if u, err := rs.env.Lookup(name); err == nil && u.Name() == t.Name() && len(s) > 0 {
			fixed = s
		}
	}
	for name, s := range rs.p.SettingAxes {
		if u, err := rs.env.Lookup(name); err == nil && u.Name() == t.Name() && len(s) > 0 {
			axes = s
		}
	}
	return fixed, axes
}

// appAxis checks the app axis: none, and the applications the
// workloads declare they can run behind, each usable on every target;
// "" is none.
func (rs *resolver) appAxis() ([]string, error) {
	p := rs.p
	if len(p.App) == 0 {
		return []string{""}, nil
	}
	var out []string
	for _, a := range p.App {
		if a == "none" || a == "" {
			out = append(out, "")
			continue
		}
		drives := workload.DrivenBy(a)
		if len(drives) == 0 {
			return nil, p.errAt("app", "%q is not none or %s", a, strings.Join(workload.Apps(), ", "))
		}
		for _, wl := range p.Workloads {
			if !slices.Contains(drives, wl) {
				return nil, p.errAt("app", "%s drives the %s workload, not %s", a, strings.Join(drives, ", "), wl)
			}
		}
		for _, t := range rs.r.Targets {
			if err := rs.env.AppUsable(a, t); err != nil {
				return nil, p.errAt("app", "%v", err)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

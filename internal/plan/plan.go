// Package plan turns a plan file, a study preset and command-line flags
// into a validated, fully resolved list of cells. It starts nothing.
package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"shootout/internal/app"
	"shootout/internal/disk"
	"shootout/internal/limits"
	"shootout/internal/result"
	"shootout/internal/stats"
	"shootout/internal/target"
	"shootout/internal/units"
	"shootout/internal/workload"
)

// Plan is what a user asks for, before it is expanded.
type Plan struct {
	Name      string            `yaml:"name"`
	Targets   []string          `yaml:"targets"`
	Baseline  string            `yaml:"baseline"`
	Workloads []string          `yaml:"workloads"`
	Params    map[string]string `yaml:"params"`
	Datasets  []string          `yaml:"datasets"`
	Clients   []int             `yaml:"clients"`
	Duration  string            `yaml:"duration"`
	Ops       int64             `yaml:"ops"`
	Reps      int64             `yaml:"reps"`
	Rate      float64           `yaml:"rate"`
	// Repeat is a count, or "auto": repeat each cell until its main
	// figure's relative standard deviation is under RSD percent, or
	// MaxRepeat runs.
	Repeat    string   `yaml:"repeat"`
	RSD       *float64 `yaml:"rsd"`
	MaxRepeat int      `yaml:"max_repeat"`
	// Alpha is the significance level repeat: auto must be able to
	// reach: it never stops below the repeats that can decide at it.
	Alpha     *float64 `yaml:"alpha"`
	Memory    string   `yaml:"memory"`
	IOPS      int      `yaml:"iops"`
	BPS       string   `yaml:"bps"`
	Disk      string   `yaml:"disk"`
	CPUs      string   `yaml:"cpus"` // a cpuset list, a quota in cores such as 0.5, or all: limits.PlanCPUs
	Neighbour []string `yaml:"neighbour"`
	// Paths is the access-path axis (kv: prepared, text, handler, get,
	// batch): each target runs the paths it speaks.
	Paths []string `yaml:"paths"`
	// Allocators is the allocator axis of the managed servers (glibc,
	// jemalloc, tcmalloc, preloaded): on AllocatorTargets when given,
	// else on every target that can take one; the others run once on
	// their own.
	Allocators       []string `yaml:"allocators"`
	AllocatorTargets []string `yaml:"allocator_targets"`
	// App: none (SQL clients) and/or an application in the loop (redmine)
	App      []string `yaml:"app"`
	Trim     *float64 `yaml:"trim"`
	Interval string   `yaml:"interval"`
	// DataSeed is the dataset's random seed (--data-seed); Seed is its
	// old name, still read so that older plan files run unchanged.
	DataSeed int64                        `yaml:"data_seed"`
	Seed     int64                        `yaml:"seed"`
	Settings map[string]map[string]string `yaml:"settings"`
	// SettingsFile gives a target the settings of a my.cnf (its
	// [mysqld], [mariadb], [mariadbd] and [server] groups), as seed 001
	// gave its servers; settings: for the same target win.
	SettingsFile map[string]string `yaml:"settings_file"`
	MaxRetries   *int              `yaml:"max_retries"`
	// NeighbourFile bounds the file fio neighbours read and write.
	NeighbourFile string `yaml:"neighbour_file"`
	// DatasetMemory gives a dataset its own VM size, as the seed paired
	// (small, 1G), (large, 2G), (giant, 8G); datasets not named get Memory.
	DatasetMemory map[string]string `yaml:"dataset_memory"`

	lines map[string]int // yaml key -> line, for error messages
	file  string
}

// Resolved is a plan after validation: every field has its final value.
type Resolved struct {
	Name       string
	CPUs       string // the plan's cpus, also in every cell's conditions
	Targets    []target.Target
	Baseline   string
	Cells      []result.Cell
	Duration   time.Duration
	Trim       float64
	Interval   time.Duration
	MaxRetries int
	Seed       int64
	Settings   map[string]map[string]string
	Skipped    map[string]string // target -> why it is not available here
	// NeighbourFileBytes is the size of the neighbours' file.
	NeighbourFileBytes int64
	// AutoRepeat is set for repeat: auto; Cells then hold the first
	// repeat of each cell, and the matrix adds repeats as it goes.
	AutoRepeat *AutoRepeat
}

// AutoRepeat is when --repeat auto stops repeating a cell: once at least
// Min ran and the relative standard deviation of the cell's main figure
// is under RSD, or after Max repeats.
type AutoRepeat struct {
	RSD float64 // a fraction: 0.03 for 3%
	Max int
	// Alpha is the significance level the repeats must be able to reach,
	// and Min the fewest repeats with which they can: a steady cell that
	// stopped below it would be "?" against every other.
	Alpha float64
	Min   int
}

// DefaultAlpha is the significance level of the report's noise marks.
const DefaultAlpha = 0.05

// Target returns the resolved target whose (masked) name is name.
func (r *Resolved) Target(name string) target.Target {
	for _, t := range r.Targets {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

// Load reads a plan file. Unknown keys and bad values are errors that name
// the file and line.
func Load(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	return Parse(path, b)
}

// Parse reads plan text; name is used in error messages.
func Parse(name string, b []byte) (*Plan, error) {
	var p Plan
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("plan %s: %s", name, yamlError(err))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err == nil && len(root.Content) > 0 {
		p.lines = map[string]int{}
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			p.lines[m.Content[i].Value] = m.Content[i].Line
		}
	}
	p.file = name
	for tg, file := range p.SettingsFile {
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(name), file)
		}
		cnf, err := ReadMyCnf(file)
		if err != nil {
			return nil, p.errAt("settings_file", "%v", err)
		}
		if p.Settings == nil {
			p.Settings = map[string]map[string]string{}
		}
		if p.Settings[tg] == nil {
			p.Settings[tg] = map[string]string{}
		}
		for k, v := range cnf {
			if _, given := p.Settings[tg][k]; !given {
				p.Settings[tg][k] = v
			}
		}
	}
	return &p, nil
}

// ReadMyCnf reads the server's settings from a my.cnf: key = value lines
// of its [mysqld], [mariadb], [mariadbd] and [server] groups, names with
// - or _ alike, a bare option as 1. A line it cannot read names its file
// and line.
func ReadMyCnf(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	server := false
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("%s:%d: a group header is [name]", path, i+1)
			}
			g := strings.ToLower(strings.TrimSpace(line[1 : len(line)-1]))
			server = g == "mysqld" || g == "mariadb" || g == "mariadbd" || g == "server"
			continue
		}
		if strings.HasPrefix(line, "!include") {
			return nil, fmt.Errorf("%s:%d: !include is not followed: give the settings in one file", path, i+1)
		}
		if !server {
			continue
		}
		k, v, hasValue := strings.Cut(line, "=")
		k = strings.ReplaceAll(strings.TrimSpace(k), "-", "_")
		if k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("%s:%d: %q is not key = value", path, i+1, line)
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if !hasValue {
			v = "1"
		}
		out[k] = v
	}
	return out, nil
}

// yamlError makes yaml.v3's error one line: "line 4: field duraton not
// found in type plan.Plan" becomes "line 4: unknown key duraton (valid: …)".
func yamlError(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var parts []string
		for _, e := range te.Errors {
			if i := strings.Index(e, "field "); i >= 0 && strings.Contains(e, " not found in type") {
				key := strings.TrimSuffix(e[i+len("field "):], e[strings.Index(e, " not found in type"):])
				e = e[:i] + "field " + key + " not found: unknown key (valid: " + strings.Join(planKeys(), ", ") + ")"
			}
			parts = append(parts, e)
		}
		return strings.Join(parts, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

func planKeys() []string {
	return []string{"name", "targets", "baseline", "workloads", "params", "datasets", "clients", "duration", "ops", "reps", "rate",
		"repeat", "rsd", "max_repeat", "alpha", "memory", "iops", "bps", "disk", "cpus", "neighbour", "app", "neighbour_file", "trim", "interval", "data_seed", "seed", "settings", "settings_file", "max_retries", "dataset_memory",
		"paths", "allocators", "allocator_targets"}
}

// errAt names the plan file and line of key, or the flag, in an error.
func (p *Plan) errAt(key, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if p.file != "" {
		if line, ok := p.lines[key]; ok {
			return fmt.Errorf("plan %s: line %d: %s: %s", p.file, line, key, msg)
		}
	}
	return fmt.Errorf("--%s: %s", flagName(key), msg)
}

// named is key as the user gave it: a plan file's key, else the flag.
func (p *Plan) named(key string) string {
	if p.file != "" {
		return key
	}
	return "--" + flagName(key)
}

func flagName(key string) string {
	switch key {
	case "workloads":
		return "workload"
	case "datasets":
		return "dataset"
	case "params":
		return "param"
	case "dataset_memory": // a study's pairing; --memory replaces it
		return "memory (per dataset)"
	case "paths":
		return "path"
	case "allocators", "allocator_targets":
		return "allocator"
	}
	return strings.ReplaceAll(key, "_", "-")
}

var neighbourRE = regexp.MustCompile(`^(0|25%|x[124])$`)

// ParseBytes reads sizes such as 512M, 1G or 1073741824; a plan's sizes
// (memory caps, rates, files) are never zero.
func ParseBytes(s string) (int64, error) {
	n, err := units.ParseBytes(s)
	if err == nil && n <= 0 {
		err = fmt.Errorf("%q is not a size such as 512M or 1G", s)
	}
	return n, err
}

// Options that are not part of a plan but change how it resolves.
type Options struct {
	// Available reports whether a target can run here; nil means every one.
	Available func(target.Target) error
}

// Resolve validates p and expands it into cells.
func (p *Plan) Resolve(opt Options) (*Resolved, error) {
	r := &Resolved{Name: p.Name, Settings: p.Settings, Skipped: map[string]string{}, Seed: p.Seed}
	if r.Name == "" {
		r.Name = "custom"
	}
	if p.DataSeed != 0 {
		r.Seed = p.DataSeed
	}
	if r.Seed == 0 {
		r.Seed = 1
	}
	if len(p.Targets) == 0 {
		return nil, p.errAt("targets", "no targets; name at least one of %s", strings.Join(target.Names(), ", "))
	}
	seen := map[string]bool{}
	for _, name := range p.Targets {
		t, err := target.Lookup(strings.TrimSpace(name))
		if err != nil {
			return nil, p.errAt("targets", "%v", err)
		}
		if seen[t.Name()] {
			return nil, p.errAt("targets", "%s is listed twice", t.Name())
		}
		seen[t.Name()] = true
		if opt.Available != nil {
			if err := opt.Available(t); err != nil {
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
		return nil, fmt.Errorf("no target can run here: %s", strings.Join(why, "; "))
	}
	r.Baseline = p.Baseline
	if r.Baseline != "" && !seen[target.Redact(r.Baseline)] {
		return nil, p.errAt("baseline", "%q is not one of the targets", r.Baseline)
	}
	if _, skipped := r.Skipped[r.Baseline]; skipped || r.Baseline == "" {
		r.Baseline = r.Targets[0].Name()
	}
	for name := range p.Settings {
		t, err := target.Lookup(name)
		if err != nil || !seen[t.Name()] {
			return nil, p.errAt("settings", "settings for %q, which is not one of the targets", target.Redact(name))
		}
	}

	if len(p.Workloads) == 0 {
		return nil, p.errAt("workloads", "no workload; valid: %s", strings.Join(workload.Names(), ", "))
	}
	wls := map[string]workload.Workload{}
	for _, name := range p.Workloads {
		w, err := workload.New(name, p.Params)
		if err != nil && p.file == "" && strings.HasPrefix(err.Error(), "--") {
			return nil, err // it names its own flag (--dump, --queries)
		}
		if err != nil {
			key := "workloads"
			if strings.Contains(err.Error(), "parameter") {
				key = "params"
			}
			return nil, p.errAt(key, "%v", err)
		}
		wls[name] = w
	}
	if len(p.Datasets) == 0 {
		defaults := map[string]bool{}
		for _, w := range wls {
			defaults[w.DefaultDataset()] = true
		}
		if len(defaults) != 1 {
			return nil, p.errAt("datasets", "no dataset given, and the workloads' default datasets differ")
		}
		for ds := range defaults {
			p.Datasets = []string{ds}
		}
	}
	for _, ds := range p.Datasets {
		for _, w := range wls {
			if _, err := w.Dataset(ds, r.Seed); err != nil {
				return nil, p.errAt("datasets", "%v", err)
			}
		}
	}
	if len(p.Clients) == 0 {
		p.Clients = []int{1}
	}
	for _, c := range p.Clients {
		if c < 1 || c > 1000 {
			return nil, p.errAt("clients", "%d is not a client count from 1 to 1000", c)
		}
	}
	if p.Duration != "" {
		d, err := time.ParseDuration(p.Duration)
		if err != nil || d < 0 {
			return nil, p.errAt("duration", "%q is not a duration such as 30s or 5m", p.Duration)
		}
		r.Duration = d
	}
	if p.Ops < 0 {
		return nil, p.errAt("ops", "must not be negative")
	}
	if p.Reps < 0 {
		return nil, p.errAt("reps", "must not be negative")
	}
	if r.Duration == 0 && p.Ops == 0 && p.Reps == 0 {
		return nil, p.errAt("duration", "give a duration (such as 60s), an operation count (ops) or operations per client (reps)")
	}
	if p.Rate < 0 {
		return nil, p.errAt("rate", "must not be negative")
	}
	repeats := 1
	switch p.Repeat {
	case "", "1":
	case "auto":
		a := &AutoRepeat{RSD: 0.03, Max: 10, Alpha: DefaultAlpha}
		if p.Alpha != nil {
			if *p.Alpha <= 0 || *p.Alpha >= 1 {
				return nil, p.errAt("alpha", "%v is not a significance level in (0, 1) such as 0.05", *p.Alpha)
			}
			a.Alpha = *p.Alpha
		}
		a.Min = stats.LeastRepeats(a.Alpha)
		a.Max = max(a.Max, a.Min)
		if p.RSD != nil {
			if *p.RSD <= 0 || *p.RSD >= 100 {
				return nil, p.errAt("rsd", "%v is not a percentage between 0 and 100 (such as 3)", *p.RSD)
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
		r.AutoRepeat = a
	default:
		n, err := strconv.Atoi(p.Repeat)
		if err != nil || n < 1 || n > 100 {
			return nil, p.errAt("repeat", "%q is not a repeat count from 1 to 100, or auto", p.Repeat)
		}
		repeats = n
	}
	if r.AutoRepeat == nil && (p.RSD != nil || p.MaxRepeat != 0 || p.Alpha != nil) {
		return nil, p.errAt("repeat", "rsd, max_repeat and alpha apply to repeat: auto only")
	}
	r.Trim = 0.1
	if p.Trim != nil {
		if *p.Trim < 0 || *p.Trim >= 0.5 {
			return nil, p.errAt("trim", "%v is not a fraction in [0, 0.5)", *p.Trim)
		}
		r.Trim = *p.Trim
	}
	r.Interval = 10 * time.Second
	if p.Interval != "" {
		d, err := time.ParseDuration(p.Interval)
		if err != nil || d < 0 {
			return nil, p.errAt("interval", "%q is not a duration such as 10s (0 for none)", p.Interval)
		}
		r.Interval = d
	}
	r.MaxRetries = 10
	if p.MaxRetries != nil {
		if *p.MaxRetries < 0 {
			return nil, p.errAt("max_retries", "must not be negative")
		}
		r.MaxRetries = *p.MaxRetries
	}
	parseMemory := func(key, v string) (int64, error) {
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
	mem, err := parseMemory("memory", p.Memory)
	if err != nil {
		return nil, err
	}
	memOf := map[string]int64{}
	for ds, v := range p.DatasetMemory {
		if memOf[ds], err = parseMemory("dataset_memory", v); err != nil {
			return nil, err
		}
	}
	if p.IOPS < 0 {
		return nil, p.errAt("iops", "must not be negative")
	}
	var bps int64
	if p.BPS != "" {
		var err error
		if bps, err = ParseBytes(p.BPS); err != nil {
			return nil, p.errAt("bps", "%v (bytes per second, e.g. 20M)", err)
		}
	}
	var diskModel string
	if p.Disk != "" {
		spec, err := disk.Parse(p.Disk)
		if err != nil {
			return nil, p.errAt("disk", "%v", err)
		}
		if spec.Modelled() {
			diskModel = spec.String()
		}
	}
	if err := limits.ValidateCPUs(p.CPUs); err != nil {
		return nil, p.errAt("cpus", "%v", err)
	}
	r.CPUs = p.CPUs
	r.NeighbourFileBytes = 256 << 20
	if p.NeighbourFile != "" {
		n, err := ParseBytes(p.NeighbourFile)
		if err != nil || n < 16<<20 || n > 2<<30 {
			return nil, p.errAt("neighbour_file", "%q is not a size from 16M to 2G", p.NeighbourFile)
		}
		r.NeighbourFileBytes = n
	}
	if len(p.Neighbour) == 0 {
		p.Neighbour = []string{"0"}
	}
	for _, n := range p.Neighbour {
		if !neighbourRE.MatchString(n) {
			return nil, p.errAt("neighbour", "%q is not one of 0, 25%%, x1, x2, x4", n)
		}
		if n == "25%" && p.IOPS <= 0 && diskModel == "" {
			return nil, p.errAt("neighbour", "25%% is a quarter of the disk's IOPS: give %s (the disk's cap, e.g. 100) or %s (a disk model)", p.named("iops"), p.named("disk"))
		}
	}

	apps, err := p.apps(r)
	if err != nil {
		return nil, err
	}
	variants, err := p.variants(r, wls)
	if err != nil {
		return nil, err
	}

	for rep := 1; rep <= repeats; rep++ {
		for _, ds := range p.Datasets {
			cellMem := mem
			if m, ok := memOf[ds]; ok {
				cellMem = m
			}
			for _, wl := range p.Workloads {
				for _, c := range p.Clients {
					for _, n := range p.Neighbour {
						for _, t := range r.Targets {
							for _, ap := range apps {
								for _, v := range variants[variantKey{wl, t.Name()}] {
									cond := result.Conditions{MemoryBytes: cellMem, IOPS: p.IOPS, BPS: bps, Disk: diskModel, CPUs: p.CPUs, Neighbour: n,
										Trim: r.Trim, Interval: r.Interval.String(), Seed: r.Seed, MaxRetries: r.MaxRetries,
										Settings: settingsOf(p.Settings, t), App: ap, WorkloadVersion: workload.VersionOf(wls[wl]), Allocator: v.allocator}
									cond.Build, cond.Transport = target.Build(t)
									if n != "0" {
										cond.NeighbourFileBytes = r.NeighbourFileBytes
									}
									cell := result.Cell{
										Target: t.Name(), Workload: wl, Params: v.params, Dataset: ds, Clients: c,
										Conditions: cond, Repeat: rep, Ops: p.Ops, Reps: p.Reps, Rate: p.Rate,
									}
									if r.Duration > 0 {
										cell.Duration = r.Duration.String()
									}
									cell.ID = CellID(cell)
									r.Cells = append(r.Cells, cell)
								}
							}
						}
					}
				}
			}
		}
	}
	return r, nil
}

// CellID is a file-name-safe id that is the same for the same cell in every
// run, so --resume and compare can match cells. External targets are named
// by a hash of their redacted URL, so no address details land in file names.
func CellID(c result.Cell) string {
	t := c.Target
	if strings.Contains(t, "://") {
		h := sha256.Sum256([]byte(target.Redact(t)))
		t = "ext-" + strings.SplitN(t, ":", 2)[0] + "-" + hex.EncodeToString(h[:4])
	} else if name, dir, ok := strings.Cut(t, "@"); ok {
		// another build: named by its directory's last element and a
		// hash of the whole path, so two builds never share an id
		h := sha256.Sum256([]byte(dir))
		base := strings.Map(func(r rune) rune {
			if r == '.' || r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
				return r
			}
			return '_'
		}, filepath.Base(dir))
		t = name + "-at-" + base + "-" + hex.EncodeToString(h[:3])
	}
	n := strings.NewReplacer("%", "pct").Replace(c.Conditions.Neighbour)
	id := fmt.Sprintf("%s__%s__%s__c%d__n%s", t, c.Workload, c.Dataset, c.Clients, n)
	if c.Conditions.MemoryBytes > 0 {
		id += "__m" + target.HumanBytes(c.Conditions.MemoryBytes)
	}
	if c.Conditions.IOPS > 0 {
		id += fmt.Sprintf("__io%d", c.Conditions.IOPS)
	}
	if c.Conditions.BPS > 0 {
		id += "__bps" + target.HumanBytes(c.Conditions.BPS)
	}
	if c.Conditions.Disk != "" {
		d, _, _ := strings.Cut(c.Conditions.Disk, ":")
		id += "__disk" + d // the parameters are in the conditions hash
	}
	if c.Conditions.CPUs != "" {
		id += "__cpu" + strings.ReplaceAll(c.Conditions.CPUs, ",", "_")
	}
	if c.Conditions.App != "" {
		id += "__app" + c.Conditions.App
	}
	if c.Conditions.Allocator != "" {
		id += "__malloc" + c.Conditions.Allocator
	}
	if len(c.Params) > 0 {
		keys := make([]string, 0, len(c.Params))
		for k := range c.Params {
			keys = append(keys, k+"="+c.Params[k])
		}
		sort.Strings(keys)
		h := sha256.Sum256([]byte(strings.Join(keys, ",")))
		id += "__p" + hex.EncodeToString(h[:3])
	}
	return fmt.Sprintf("%s__h%s__r%d", id, conditionsHash(c), c.Repeat)
}

// conditionsHash is a short hash of what can change a cell's figures but
// is not spelled out in its id (duration, rate, trim, seed, settings, the
// server build …), so the id of a cell measured differently differs.
func conditionsHash(c result.Cell) string {
	rest := struct {
		Duration   string
		Ops        int64
		Reps       int64 `json:",omitempty"`
		Rate       float64
		Conditions result.Conditions
	}{c.Duration, c.Ops, c.Reps, c.Rate, c.Conditions}
	b, _ := json.Marshal(rest)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:4])
}

// settingsOf finds the plan's settings for t, whichever name the plan used.
func settingsOf(all map[string]map[string]string, t target.Target) map[string]string {
	for name, s := range all {
		if u, err := target.Lookup(name); err == nil && u.Name() == t.Name() && len(s) > 0 {
			return s
		}
	}
	return nil
}

// apps checks the app axis: none and redmine, redmine only for the redmine
// workload on targets shootout starts, with Redmine installed; "" is none.
func (p *Plan) apps(r *Resolved) ([]string, error) {
	if len(p.App) == 0 {
		return []string{""}, nil
	}
	var out []string
	for _, a := range p.App {
		switch a {
		case "none", "":
			out = append(out, "")
		case "redmine":
			for _, wl := range p.Workloads {
				if wl != "redmine" {
					return nil, p.errAt("app", "redmine drives the redmine workload, not %s", wl)
				}
			}
			for _, t := range r.Targets {
				if !t.Managed() {
					return nil, p.errAt("app", "redmine needs a target shootout starts, not %s", t.Name())
				}
				d, isSQL := target.DialectOf(t)
				if !isSQL {
					return nil, p.errAt("app", "redmine needs a SQL server, not %s", t.Name())
				}
				if err := app.RedmineAvailable(d.Flavor); err != nil {
					return nil, p.errAt("app", "%v", err)
				}
			}
			out = append(out, "redmine")
		default:
			return nil, p.errAt("app", "%q is not none or redmine", a)
		}
	}
	return out, nil
}

// variantKey is a workload on a target.
type variantKey struct{ workload, target string }

// variant is one cell's place on the path and allocator axes.
type variant struct {
	params    map[string]string
	allocator string
}

// variants expands the path and allocator axes per workload and target:
// a target runs the paths it speaks and the allocators it can take. A
// protocol or path no target of the plan speaks is bad input, found here
// before anything starts.
func (p *Plan) variants(r *Resolved, wls map[string]workload.Workload) (map[variantKey][]variant, error) {
	if len(p.Paths) > 0 && p.Params["path"] != "" {
		return nil, p.errAt("paths", "the path is given twice: in paths and in params")
	}
	allocs, err := p.allocators(r)
	if err != nil {
		return nil, err
	}
	out := map[variantKey][]variant{}
	for _, wl := range p.Workloads {
		paths := []string{""}
		if len(p.Paths) > 0 {
			paths = p.Paths
		}
		spoken := map[string]bool{}
		for _, t := range r.Targets {
			d, _ := target.DialectOf(t)
			var why error
			for _, path := range paths {
				params, w := p.Params, wls[wl]
				if path != "" {
					params = maps.Clone(p.Params)
					if params == nil {
						params = map[string]string{}
					}
					params["path"] = path
					var err error
					if w, err = workload.New(wl, params); err != nil {
						return nil, p.errAt("paths", "%v", err)
					}
				}
				if err := workload.Speaks(w, t.Protocol(), d); err != nil {
					why = err
					continue
				}
				spoken[path] = true
				for _, a := range allocs[t.Name()] {
					out[variantKey{wl, t.Name()}] = append(out[variantKey{wl, t.Name()}], variant{params: params, allocator: a})
				}
			}
			if len(out[variantKey{wl, t.Name()}]) == 0 {
				key := "targets"
				if len(p.Paths) > 0 {
					key = "paths"
				} else if p.Params["path"] != "" {
					key = "params"
				}
				return nil, p.errAt(key, "%s on %s: %v", wl, t.Name(), why)
			}
		}
		for _, path := range paths {
			if !spoken[path] {
				return nil, p.errAt("paths", "no target of the plan speaks %s path %s", wl, path)
			}
		}
	}
	return out, nil
}

// allocatorNames are the allocators a plan can ask for.
var allocatorNames = []string{"glibc", "jemalloc", "tcmalloc"}

// allocators are the allocator axis's values per target: "" (the
// target's own) for one that takes none.
func (p *Plan) allocators(r *Resolved) (map[string][]string, error) {
	out := map[string][]string{}
	for _, a := range p.Allocators {
		if !slices.Contains(allocatorNames, a) {
			return nil, p.errAt("allocators", "%q is not an allocator: use %s", a, strings.Join(allocatorNames, ", "))
		}
	}
	only := map[string]bool{}
	for _, name := range p.AllocatorTargets {
		t, err := target.Lookup(name)
		if err != nil {
			return nil, p.errAt("allocator_targets", "%v", err)
		}
		only[t.Name()] = true
	}
	for _, t := range r.Targets {
		out[t.Name()] = []string{""}
		if len(p.Allocators) == 0 || (len(only) > 0 && !only[t.Name()]) {
			continue
		}
		var takes []string
		var why error
		for _, a := range p.Allocators {
			if err := target.TakesAllocator(t, a); err != nil {
				why = err
				continue
			}
			takes = append(takes, a)
		}
		switch {
		case len(takes) > 0:
			out[t.Name()] = takes
		case only[t.Name()]:
			return nil, p.errAt("allocator_targets", "%s: %v", t.Name(), why)
		}
	}
	return out, nil
}

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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"shootout/internal/proto"
	"shootout/internal/result"
	"shootout/internal/shard"
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
	// Agents are how many agent processes run a cell's clients (0: none,
	// shootout's own process drives them), one cell per count: an axis,
	// so one process against several is compared in one run's repeats.
	Agents IntList `yaml:"agents"`
	// AgentCPU is each agent's CPU quota in cores (0: none), a client
	// machine smaller than the server's.
	AgentCPU float64 `yaml:"agent_cpu"`
	// Repeat is a count, or "auto": repeat each cell until its main
	// figure's relative standard deviation is under RSD percent, or
	// MaxRepeat runs.
	Repeat    string   `yaml:"repeat"`
	RSD       *float64 `yaml:"rsd"`
	MaxRepeat int      `yaml:"max_repeat"`
	// Alpha is the significance level repeat: auto must be able to
	// reach: it never stops below the repeats that can decide at it.
	Alpha  *float64 `yaml:"alpha"`
	Memory string   `yaml:"memory"`
	IOPS   int      `yaml:"iops"`
	BPS    string   `yaml:"bps"`
	Disk   string   `yaml:"disk"`
	CPUs   string   `yaml:"cpus"` // a cpuset list, a quota in cores such as 0.5, or all
	// Link is the links between a cluster's nodes, DELAY[,RATE] or none:
	// an axis of the cluster targets' cells, a single server's none.
	Link LinkList `yaml:"link"`
	// LinkTargets are the cluster targets the link axis is for, when
	// given; the other clusters run with none.
	LinkTargets []string `yaml:"link_targets"`
	Neighbour   []string `yaml:"neighbour"`
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
	DataSeed int64 `yaml:"data_seed"`
	Seed     int64 `yaml:"seed"`
	// Settings are a target's settings of one value; SettingAxes those
	// given a list, an axis of the target's cells: one cell per value
	// (writers: [one, all]). A plan file gives both under settings:,
	// which SettingsNode holds until the plan is read (settingsFromNode).
	Settings     map[string]map[string]string   `yaml:"-"`
	SettingAxes  map[string]map[string][]string `yaml:"-"`
	SettingsNode yaml.Node                      `yaml:"settings"`
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
	// Shard is this machine's share of the cells, I/N (run --shard;
	// internal/shard says which cells).
	Shard string `yaml:"shard"`

	lines map[string]int // yaml key -> line, for error messages
	file  string
	// diskOverIOPS: --disk was given without --iops
	diskOverIOPS bool
}

// Resolved is a plan after validation: every field has its final value.
type Resolved struct {
	Name       string
	CPUs       string // the plan's cpus, also in every cell's conditions
	Targets    []Target
	Baseline   string
	Cells      []result.Cell
	Duration   time.Duration
	Trim       float64
	Interval   time.Duration
	MaxRetries int
	Seed       int64
	Settings   map[string]map[string]string
	// SettingAxes are the settings the plan gave a list, by target
	// name: one cell per value.
	SettingAxes map[string]map[string][]string
	Skipped     map[string]string // target -> why it is not available here
	// NeighbourFileBytes is the size of the neighbours' file.
	NeighbourFileBytes int64
	// workloads are the plan's workloads, made once, by workloadKey
	workloads map[string]workload.Workload
	// Notes are what resolving changed of the plan, for the log.
	Notes []string
	// AutoRepeat is set for repeat: auto; Cells then hold the first
	// repeat of each cell, and the matrix adds repeats as it goes.
	AutoRepeat *AutoRepeat
	// Shard is the share of the plan's cells Cells holds (--shard), of
	// PlanCells in all; nil for all of them.
	Shard     *shard.Spec
	PlanCells int
	// All are the whole plan's cells when Cells are a shard's: their
	// ids are what every shard of the plan records (run.json).
	All []result.Cell
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
func (r *Resolved) Target(name string) Target {
	for _, t := range r.Targets {
		if t.Name() == name {
			return t
		}
	}
	return nil
}

// Workload is the workload of cell c, made for it from the one the plan
// made: a Freshener's files are read once per plan; the others are made
// again (a cell's workload holds the cell's own state), which is cheap.
func (r *Resolved) Workload(c result.Cell) (workload.Workload, error) {
	if w, ok := r.workloads[workloadKey(c.Workload, c.Params)].(workload.Freshener); ok {
		return w.Fresh(), nil
	}
	return workload.New(c.Workload, c.Params)
}

// workloadKey names a workload with its parameters.
func workloadKey(name string, params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k, v := range params {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return name + "?" + strings.Join(keys, "&")
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
	if err := p.settingsFromNode(); err != nil {
		return nil, err
	}
	if err := p.readSettingsFiles(name); err != nil {
		return nil, err
	}
	return &p, nil
}

// readSettingsFiles puts each settings_file's settings under its target,
// those of settings: for the same target kept: the groups read are the
// ones the target's server reads (its flavour's, as the Env says).
func (p *Plan) readSettingsFiles(name string) error {
	if len(p.SettingsFile) == 0 {
		return nil
	}
	env, err := Options{}.env()
	if err != nil {
		return err
	}
	for tg, file := range p.SettingsFile {
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(name), file)
		}
		groups, err := optionGroups(env, tg)
		if err != nil {
			return p.errAt("settings_file", "%v", err)
		}
		cnf, err := ReadMyCnf(file, groups)
		if err != nil {
			return p.errAt("settings_file", "%v", err)
		}
		if p.Settings == nil {
			p.Settings = map[string]map[string]string{}
		}
		if p.Settings[tg] == nil {
			p.Settings[tg] = map[string]string{}
		}
		for k, v := range cnf {
			_, listed := p.SettingAxes[tg][k]
			if _, given := p.Settings[tg][k]; !given && !listed {
				p.Settings[tg][k] = v
			}
		}
	}
	return nil
}

// optionGroups are the option file groups target name's server reads.
func optionGroups(env Env, name string) ([]string, error) {
	t, err := env.Lookup(name)
	if err != nil {
		return nil, err
	}
	if d, ok := env.Dialect(t); ok && d.Flavor.OptionGroups() != nil {
		return d.Flavor.OptionGroups(), nil
	}
	return nil, fmt.Errorf("%s: its server reads no option file", name)
}

// ReadMyCnf reads the server's settings from a my.cnf: key = value lines
// of the groups given (MariaDB's: [mysqld], [mariadb], [mariadbd] and
// [server]), names with - or _ alike, a bare option as 1. A line it
// cannot read names its file and line.
func ReadMyCnf(path string, groups []string) (map[string]string, error) {
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
			server = slices.Contains(groups, g)
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
				hint := ""
				if near := suggest(key); near != "" {
					hint = "; did you mean " + near + "?"
				}
				e = e[:i] + "field " + key + " not found: unknown key" + hint + " (valid: " + strings.Join(Keys(), ", ") + ")"
			}
			parts = append(parts, e)
		}
		return strings.Join(parts, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
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

// flagName is the flag that gives key; a key only a plan file gives is
// named as the flag that replaces it (dataset_memory: --memory).
func flagName(key string) string {
	switch s := SettingByKey(key); {
	case s != nil && s.Flag != "":
		return s.Flag
	case key == "dataset_memory":
		return "memory (per dataset)"
	case key == "allocator_targets":
		return "allocator"
	case key == "link_targets":
		return "link"
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

// IntList is a list of whole numbers that a plan may also give as one
// (`agents: 2` as `agents: [2]`).
type IntList []int

// UnmarshalYAML takes a scalar as a list of one, and a string as the
// flag's comma-separated list (`agents: 0,2`).
func (l *IntList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = nil
		for _, f := range strings.Split(n.Value, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("line %d: %q is not a whole number or a list of them such as 0,2", n.Line, n.Value)
			}
			*l = append(*l, v)
		}
		return nil
	}
	var vs []int
	if err := n.Decode(&vs); err != nil {
		return err
	}
	*l = vs
	return nil
}

// Redacted is a target's name as shootout prints it: a URL's password
// masked.
func Redacted(target string) string { return proto.Redact(target) }

// CellID is a file-name-safe id that is the same for the same cell in every
// run, so --resume and compare can match cells. External targets are named
// by a hash of their redacted URL, so no address details land in file names.
func CellID(c result.Cell) string {
	t := c.Target
	if strings.Contains(t, "://") {
		h := sha256.Sum256([]byte(proto.Redact(t)))
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
		id += "__m" + units.FormatBytes(c.Conditions.MemoryBytes)
	}
	if c.Conditions.IOPS > 0 {
		id += fmt.Sprintf("__io%d", c.Conditions.IOPS)
	}
	if c.Conditions.BPS > 0 {
		id += "__bps" + units.FormatBytes(c.Conditions.BPS)
	}
	if c.Conditions.Disk != "" {
		d, _, _ := strings.Cut(c.Conditions.Disk, ":")
		id += "__disk" + d // the parameters are in the conditions hash
	}
	if c.Conditions.CPUs != "" {
		id += "__cpu" + strings.ReplaceAll(c.Conditions.CPUs, ",", "_")
	}
	if c.Conditions.Link != "" {
		id += "__link" + strings.ReplaceAll(c.Conditions.Link, ",", "_")
	}
	if c.Conditions.App != "" {
		id += "__app" + c.Conditions.App
	}
	if c.Conditions.Allocator != "" {
		id += "__malloc" + c.Conditions.Allocator
	}
	if c.Conditions.Agents > 0 {
		id += fmt.Sprintf("__ag%d", c.Conditions.Agents)
	}
	if c.Conditions.AgentCPU > 0 {
		id += fmt.Sprintf("x%g", c.Conditions.AgentCPU)
	}
	if v := variantID(c.Variant); v != "" {
		id += "__v" + v
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

// variantID is a cell's variant in its id, readable: its settings'
// values (the link has its own part), file-name safe. It must tell every
// variant apart by itself: --resume, compare and merge match cells by
// the id without its conditions hash (Cell.NameKey). A long one is cut,
// with a hash of the whole.
func variantID(variant string) string {
	var parts []string
	for _, kv := range strings.Fields(variant) {
		if strings.HasPrefix(kv, "link=") {
			continue
		}
		parts = append(parts, strings.Map(func(r rune) rune {
			switch {
			case r == '=':
				return '-'
			case r == '.' || r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
				return r
			}
			return '_'
		}, kv))
	}
	id := strings.Join(parts, "_")
	if len(id) > 64 || !plainVariant(variant) {
		h := sha256.Sum256([]byte(variant))
		id = id[:min(len(id), 48)] + "-" + hex.EncodeToString(h[:4])
	}
	return id
}

// plainVariant is whether variantID's readable form alone tells variant
// apart: each key=value of letters, digits, dots and underscores, one
// '=' (a '-' or another character mapped would make "a=b-c" and "a-b=c"
// one id).
func plainVariant(variant string) bool {
	for _, kv := range strings.Fields(variant) {
		if strings.HasPrefix(kv, "link=") {
			continue
		}
		if strings.Count(kv, "=") != 1 || strings.ContainsFunc(kv, func(r rune) bool {
			return r != '=' && r != '.' && r != '_' && !(r >= '0' && r <= '9') && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z')
		}) {
			return false
		}
	}
	return true
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

package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"shootout/internal/app"
	"shootout/internal/dialect"
	"shootout/internal/disk"
	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"
)

// The plan resolves values and starts nothing: what it must ask of the
// targets, the disk models and the CPUs it asks of targetEnv, and what
// only running a program tells (a server build's version) the runner
// finds out here, in Stamp, before the first cell.

func init() { plan.Register(targetEnv{}) }

// targetEnv answers the plan's questions from the targets' registry.
type targetEnv struct{}

func (targetEnv) Names() []string { return target.Names() }

func (targetEnv) Lookup(name string) (plan.Target, error) { return target.Lookup(name) }

func (targetEnv) Dialect(t plan.Target) (dialect.Dialect, bool) {
	return target.DialectOf(t.(target.Target))
}

func (targetEnv) TakesAllocator(t plan.Target, a string) error {
	return target.TakesAllocator(t.(target.Target), a)
}

func (targetEnv) AppUsable(a string, t plan.Target) error {
	if !t.Managed() {
		return fmt.Errorf("%s needs a target shootout starts, not %s", a, t.Name())
	}
	d, isSQL := target.DialectOf(t.(target.Target))
	if !isSQL {
		return fmt.Errorf("%s needs a SQL server, not %s", a, t.Name())
	}
	return app.Available(a, d.Flavor)
}

func (targetEnv) Disk(spec string) (string, error) {
	s, err := disk.Parse(spec)
	if err != nil || !s.Modelled() {
		return "", err
	}
	return s.String(), nil
}

func (targetEnv) CPUs(spec string) error { return limits.ValidateCPUs(spec) }

func (targetEnv) Nodes(t plan.Target, settings map[string]string) int {
	return target.NodesOf(t.(target.Target), settings)
}

func (targetEnv) CheckSettings(t plan.Target, settings map[string]string) error {
	if c, ok := t.(target.SettingsChecker); ok {
		return c.CheckSettings(settings)
	}
	return nil
}

func (targetEnv) OwnSettings(t plan.Target) []string {
	if o, ok := t.(target.SettingsOwner); ok {
		return o.OwnSettings()
	}
	return nil
}

// StartCost is how long cell c takes to start its servers, for the dry
// run's estimate; 0 where a single server's few seconds do.
func StartCost(res *plan.Resolved, c result.Cell) time.Duration {
	t := res.Target(c.Target)
	if t == nil {
		return 0
	}
	return target.StartCostOf(t.(target.Target), c.Conditions.Settings)
}

// Available is the plan's check of a target a preset may skip.
func Available(t plan.Target) error { return t.(target.Target).Available() }

// TargetOf is a resolved target as the runner's.
func TargetOf(t plan.Target) target.Target { return t.(target.Target) }

// Stamp puts each managed server's build (its program and the first line
// of its --version) and transport into its cells' conditions, and their
// ids: an upgraded server or a socket instead of TCP changes the figures,
// so --resume and compare must see the difference. The plan starts no
// program, so it leaves them to the runner; a cell already stamped is
// left as it is.
func Stamp(res *plan.Resolved) {
	stamp(res, res.Cells)
	stamp(res, res.All) // a shard records the whole plan's ids
}

func stamp(res *plan.Resolved, cells []result.Cell) {
	for i := range cells {
		c := &cells[i]
		t := res.Target(c.Target)
		if t == nil || c.Conditions.Build != "" || c.Conditions.Transport != "" {
			continue
		}
		c.Conditions.Build, c.Conditions.Transport = target.Build(t.(target.Target))
		c.ID = plan.CellID(*c)
	}
}

// Precheck refuses, before anything starts, what the run would refuse
// later: a --memory no server lives in, limits this machine cannot
// apply (unless allowUnlimited), a disk model or neighbour it cannot
// give.
func Precheck(res *plan.Resolved, allowUnlimited bool) error {
	if err := CheckPlan(res); err != nil {
		return err
	}
	if !allowUnlimited {
		if err := checkLimits(res); err != nil {
			return err
		}
	}
	return checkDisks(res)
}

// CheckPlan refuses, also in --dry-run, a --memory that a server cannot
// live in (with the least that would do) and a target's own settings
// that its start would refuse.
func CheckPlan(res *plan.Resolved) error {
	if err := checkMemory(res); err != nil {
		return err
	}
	return checkSettings(res)
}

func checkSettings(res *plan.Resolved) error {
	for _, pt := range res.Targets {
		t, ok := pt.(target.SettingsChecker)
		if !ok {
			continue
		}
		if err := t.CheckSettings(res.Settings[pt.Name()]); err != nil {
			return fmt.Errorf("plan settings: %w", err)
		}
	}
	return nil
}

func checkMemory(res *plan.Resolved) error {
	for _, c := range res.Cells {
		t := res.Target(c.Target)
		if t == nil || c.Conditions.MemoryBytes == 0 {
			continue
		}
		if _, _, err := target.SizeFor(t.(target.Target), c.Conditions.MemoryBytes, c.Clients); err != nil {
			return fmt.Errorf("--memory %s: %w", target.HumanBytes(c.Conditions.MemoryBytes), err)
		}
	}
	return nil
}

// checkLimits applies the same mapping the run applies: what it would
// refuse, the command refuses before anything starts.
func checkLimits(res *plan.Resolved) error {
	for _, c := range res.Cells {
		t := res.Target(c.Target)
		if t == nil {
			continue
		}
		lim, err := CellLimits(t.(target.Target), c)
		if err != nil {
			return err
		}
		if lim.Unavailable != nil {
			return fmt.Errorf("--memory/--iops/--bps/--cpus: %v", lim.Unavailable)
		}
	}
	return nil
}

func checkDisks(res *plan.Resolved) error {
	for _, c := range res.Cells {
		if c.Conditions.Disk == "" {
			continue
		}
		if err := disk.Check(); err != nil {
			return fmt.Errorf("--disk: %v", err)
		}
		if t := res.Target(c.Target); t != nil && !t.Managed() {
			return fmt.Errorf("--disk: %s is a server shootout does not start: its data directory is not shootout's to move; drop it or --disk", c.Target)
		}
	}
	for _, c := range res.Cells {
		if err := limits.CheckNeighbour(limits.NeighbourSpec(c.Conditions.Neighbour), DiskIOPS(c.Conditions)); err != nil {
			return fmt.Errorf("--neighbour: %v", err)
		}
	}
	return nil
}

// Preflight connects to every external server once, so a wrong password
// or an unreachable address is one clear error before anything runs.
func Preflight(ctx context.Context, res *plan.Resolved) error {
	for _, t := range res.Targets {
		if t.Managed() {
			continue
		}
		inst, err := t.(target.Target).Start(ctx, target.StartOptions{})
		if err != nil {
			return err
		}
		inst.Stop(ctx)
	}
	return nil
}

// MustRunHere refuses a target the user named that cannot run here.
func MustRunHere(res *plan.Resolved) error {
	for _, t := range res.Targets {
		if err := t.(target.Target).Available(); err != nil {
			return fmt.Errorf("--targets: %s cannot run here: %v", t.Name(), err)
		}
	}
	return nil
}

// loadsInto splits target names into those workload wl loads into (its
// declaration's SQL flavours) and the rest.
func loadsInto(wl string, names []string) (kept, left []string) {
	for _, name := range names {
		if t, err := target.Lookup(name); err == nil {
			if d, ok := target.DialectOf(t); ok && workload.LoadsInto(wl, d.Flavor) {
				kept = append(kept, name)
				continue
			}
		}
		left = append(left, name)
	}
	return kept, left
}

// BadInput is the message of an error in what the user gave that only a
// server could find (a statement of their queries file that does not
// prepare): the run ends as for any bad input.
func BadInput(err error) (string, bool) {
	if !errors.Is(err, workload.ErrBadInput) {
		return "", false
	}
	return strings.TrimPrefix(err.Error(), workload.ErrBadInput.Error()+": "), true
}

// RetryNote is what cell c's workload says of retrying past max_retries
// (workload.RetryNoter), "" for nothing, for the dry run's line on
// retries.
func RetryNote(res *plan.Resolved, c result.Cell) string {
	w, err := res.Workload(c)
	if err != nil {
		return ""
	}
	if n, ok := w.(workload.RetryNoter); ok {
		return n.RetryNote()
	}
	return ""
}

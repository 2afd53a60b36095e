package plan

import (
	"errors"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// Target is what the plan needs of a target; the runner's targets are
// one (and it asks its own of them back).
type Target interface {
	Name() string
	Protocol() proto.Name
	Managed() bool
}

// Env is what the plan asks of the world beyond the plan's text: which
// targets a name stands for and what each can take, what the disk and
// CPU settings mean. The runner registers the real one (Register), so
// the plan imports no target, app, disk or limits package and starts
// nothing itself.
type Env interface {
	// Names are the targets' names, for --help and refusals.
	Names() []string
	// Lookup is the target a name (or URL) stands for.
	Lookup(name string) (Target, error)
	// Dialect is a SQL target's dialect; false for another protocol.
	Dialect(t Target) (dialect.Dialect, bool)
	// TakesAllocator is nil when t's server can run on allocator.
	TakesAllocator(t Target, allocator string) error
	// AppUsable is nil when app can stand in front of t here.
	AppUsable(app string, t Target) error
	// Disk reads a --disk value: the model as cells record it, "" for
	// the raw disk.
	Disk(spec string) (model string, err error)
	// CPUs checks a --cpus value.
	CPUs(spec string) error
	// Nodes is how many servers a cell of t starts under settings: 1
	// but for a cluster, whose nodes a --link lies between.
	Nodes(t Target, settings map[string]string) int
	// CheckSettings is nil when t's start would take settings (a
	// cluster's own, such as writers, checked as its start checks them).
	CheckSettings(t Target, settings map[string]string) error
	// OwnSettings are the settings t reads itself rather than passing
	// them to its server (a Galera cluster's nodes and writers).
	OwnSettings(t Target) []string
}

var registered Env

// Register makes env the one Resolve asks when its Options give none;
// the runner calls it from its init.
func Register(env Env) { registered = env }

// Options that are not part of a plan but change how it resolves.
type Options struct {
	// Available reports whether a target can run here; nil means every one.
	Available func(Target) error
	// Env answers for the targets; nil for the registered one.
	Env Env
}

func (o Options) env() (Env, error) {
	switch {
	case o.Env != nil:
		return o.Env, nil
	case registered != nil:
		return registered, nil
	}
	return nil, errors.New("plan: no targets are registered (import shootout/internal/run)")
}

package target

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// StartsWhat says what a cell of t starts, and with which settings, from
// what the target says of itself: `run --dry-run` and `targets` ask it
// here, so a new target needs no line in the command.
func StartsWhat(t Target, settings map[string]string) string {
	var s string
	switch {
	case !t.Managed():
		s = "an external server (starts nothing)"
	case t.Embedded():
		s = "an embedded database file (WAL) in the work directory, inside shootout"
	case isStarter(t):
		s = t.(starter).StartsWhat(settings)
	default:
		build, transport := Build(t)
		prog, _, _ := strings.Cut(build, ": ")
		s = fmt.Sprintf("a private %s per cell%s, %s", filepath.Base(prog), engineOf(t), transport)
	}
	if len(settings) > 0 {
		s += "; settings " + keyValues(settings)
	}
	return s
}

// starter is a target that says itself what a cell starts (a cluster:
// how many servers, and where).
// Clusters is a target whose cell starts several servers, each a host of
// its own: Nodes is how many, under the plan's settings (0 when they are
// not valid: Start says why).
type Clusters interface {
	Nodes(settings map[string]string) int
}

// NodesOf is how many servers a cell of t starts: 1 but for a cluster.
func NodesOf(t Target, settings map[string]string) int {
	if c, ok := t.(Clusters); ok {
		if n := c.Nodes(settings); n > 0 {
			return n
		}
	}
	return 1
}

type starter interface {
	StartsWhat(settings map[string]string) string
}

func isStarter(t Target) bool { _, ok := t.(starter); return ok }

// engineOf is ", engine X" where the server has several engines; the
// engine's table options tell one variant of an engine from another.
func engineOf(t Target) string {
	_, engine := Kind(t)
	if d, ok := DialectOf(t); ok && d.EngineOptions != "" {
		engine += " " + d.EngineOptions
	}
	if engine == "" {
		return ""
	}
	return ", engine " + engine
}

// keyValues prints settings as key=value, sorted by key.
func keyValues(m map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k+"="+m[k])
	}
	return strings.Join(kv, ", ")
}

// versionNumber is the first dotted number of a --version line.
var versionNumber = regexp.MustCompile(`\d+\.\d+(\.\d+)?`)

// ShortVersion is the server program and its version ("mariadbd
// 10.11.6"), from the --version line a cell's identity records.
func ShortVersion(t Target) string {
	build, _ := Build(t)
	prog, line, ok := strings.Cut(build, ": ")
	if !ok {
		prog, line = strings.Fields(build + " ?")[0], build
	}
	v := versionNumber.FindString(line)
	if v == "" {
		v = "version unknown"
	}
	return filepath.Base(prog) + " " + v
}

// ExternalSQL is how a user names a SQL server of their own, for the
// refusals of commands that load only those.
const ExternalSQL = "a mysql:// or postgres:// URL"

// ExternalNote is how a user names a server of their own, for the list
// of targets.
const ExternalNote = "External: mysql://…, postgres://…, redis://…, tarantool://…, memcached://… " +
	"(a server you run, on a loopback address; the password is never printed or stored)."

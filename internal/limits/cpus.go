package limits

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// SplitCPUs is the default placement on a machine with two or more cores:
// the server gets every core but the first, the client (shootout) the
// first, so the client does not take the server's CPU in the middle of a
// measurement. On one core there is nothing to split.
func SplitCPUs() (server, client string, ok bool) {
	n := runtime.NumCPU()
	if n < 2 {
		return "", "", false
	}
	if n == 2 {
		return "1", "0", true
	}
	return fmt.Sprintf("1-%d", n-1), "0", true
}

// ClientCPUs is the complement of a server cpuset list on this machine, ""
// when the server has them all.
func ClientCPUs(server string) (string, error) {
	used, err := parseCPUList(server)
	if err != nil {
		return "", err
	}
	var rest []string
	for c := 0; c < runtime.NumCPU(); c++ {
		if !used[c] {
			rest = append(rest, strconv.Itoa(c))
		}
	}
	return strings.Join(rest, ","), nil
}

// parseCPUList reads "0-2,5" and checks every CPU exists here.
func parseCPUList(s string) (map[int]bool, error) {
	out := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= runtime.NumCPU() {
			return nil, fmt.Errorf("%q is not a list of this machine's CPUs (0-%d), such as 1 or 1-3", s, runtime.NumCPU()-1)
		}
		for c := a; c <= b; c++ {
			out[c] = true
		}
	}
	return out, nil
}

// CPUPlan is where a server and shootout run and how much CPU time the
// server gets, read from a --cpus value.
type CPUPlan struct {
	Server string  // the server's cpuset, "" for any core
	Quota  float64 // the server's CPU time in cores (CFS quota), 0 for none
	Client string  // shootout's cpuset, "" for any core
	// Default is the placement nobody asked for: where cgroups cannot be
	// used the cell runs without it, with a note.
	Default bool
}

// quotaRE is the quota form of --cpus. The decimal point is what tells it
// from a cpuset list: "1" is the core numbered 1, "1.0" one core's worth
// of time on any core.
var quotaRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

// minQuota is the smallest CFS quota the kernel takes (1 ms per period).
const minQuota = 0.01

// PlanCPUs reads a --cpus value:
//
//	""       the default: the server on every core but the first, shootout on the first
//	"all"    no placement and no quota: everything shares every core
//	"1-3"    a cpuset list: the server on those cores, shootout on the rest
//	"0.5"    a quota in cores: the server gets that much CPU time per period;
//	         it keeps the default split when the quota fits the server's
//	         cores, and otherwise runs on every core, beside shootout
func PlanCPUs(s string) (CPUPlan, error) {
	n := runtime.NumCPU()
	server, client, split := SplitCPUs()
	switch {
	case s == "all":
		return CPUPlan{}, nil
	case s == "":
		return CPUPlan{Server: server, Client: client, Default: split}, nil
	case quotaRE.MatchString(s):
		q, err := strconv.ParseFloat(s, 64)
		if err != nil || q < minQuota || q > float64(n) {
			return CPUPlan{}, fmt.Errorf("%q is a CPU quota outside what this machine has: give %.2f to %d.0 cores", s, minQuota, n)
		}
		if split && q <= float64(n-1) {
			return CPUPlan{Server: server, Client: client, Quota: q}, nil
		}
		return CPUPlan{Quota: q}, nil
	}
	if _, err := parseCPUList(s); err != nil {
		return CPUPlan{}, fmt.Errorf("%q is not one of the accepted forms: a cpuset list of this machine's CPUs (0-%d) such as 1 or 0-%d; a quota in cores with a decimal point, %.2f to %d.0, such as 0.5; or all", s, n-1, n-1, minQuota, n)
	}
	rest, _ := ClientCPUs(s)
	return CPUPlan{Server: s, Client: rest}, nil
}

// ValidateCPUs checks a --cpus value.
func ValidateCPUs(s string) error {
	_, err := PlanCPUs(s)
	return err
}

// String says where the server and shootout run, for the log, the dry run
// and the cell's notes.
func (p CPUPlan) String() string {
	if p.Server == "" && p.Quota == 0 && p.Client == "" {
		return "servers and shootout share every core"
	}
	s := "each server on any core"
	if p.Server != "" {
		s = "each server on CPUs " + p.Server
	}
	if p.Quota > 0 {
		s += fmt.Sprintf(", limited to %s cores of CPU time (CFS quota %d us per %d us)", strconv.FormatFloat(p.Quota, 'f', -1, 64), quotaMicros(p.Quota), cfsPeriod)
	}
	if p.Client != "" {
		return s + ", shootout (the client) on CPUs " + p.Client
	}
	return s + ", shootout (the client) on any core, beside it"
}

// Pinned is shootout itself moved into a cpuset cgroup for one cell.
type Pinned struct {
	group *Group
	home  string // the cgroup.procs file of the cpuset group it came from
}

// PinSelf moves this whole process (every thread) onto cpus, through a
// cpuset cgroup named shootout-<name>; Unpin moves it back.
func PinSelf(name, cpus string) (*Pinned, error) {
	g, err := Create(name, Request{CPUs: cpus, pinSelf: true}, "")
	if err != nil {
		return nil, err
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	home := g.h.cpusetHome(string(self))
	for _, f := range g.procs {
		if err := writeFile(f, strconv.Itoa(os.Getpid())); err != nil {
			g.Remove()
			return nil, fmt.Errorf("move shootout onto CPUs %s: %w", cpus, err)
		}
	}
	return &Pinned{group: g, home: home}, nil
}

// Dirs are the cgroups to record in the ledger.
func (p *Pinned) Dirs() []string { return p.group.Dirs() }

// Unpin moves the process back where it was and removes the cgroup.
func (p *Pinned) Unpin() error {
	if err := os.WriteFile(p.home, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("move shootout back to %s: %w", p.home, err)
	}
	return p.group.Remove()
}

// CPUList is the CPUs of a cpuset list ("0-2,5") in order; "" is every
// CPU of this machine.
func CPUList(s string) ([]int, error) {
	if s == "" {
		s = fmt.Sprintf("0-%d", runtime.NumCPU()-1)
	}
	set, err := parseCPUList(s)
	if err != nil {
		return nil, err
	}
	var out []int
	for c := 0; c < runtime.NumCPU(); c++ {
		if set[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

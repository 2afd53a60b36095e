package limits

import (
	"fmt"
	"os"
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

// ValidateCPUs checks a --cpus value.
func ValidateCPUs(s string) error {
	if s == "" || s == "all" {
		return nil
	}
	_, err := parseCPUList(s)
	return err
}

// Pinned is shootout itself moved into a cpuset cgroup for one cell.
type Pinned struct {
	group *Group
	home  string // the cgroup.procs file of the cpuset group it came from
}

// PinSelf moves this whole process (every thread) onto cpus, through a
// cpuset cgroup named shootout-<name>; Unpin moves it back.
func PinSelf(name, cpus string) (*Pinned, error) {
	g, err := Create(name, Request{CPUs: cpus}, "")
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
